/// The release this build is (backups record it; `stratus --version` prints it).
public enum StratusVersion {
    public static let current = "0.9.0"
}
