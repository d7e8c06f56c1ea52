/// How a provider's web sign-in proves itself at the provider's token endpoint: a fixed client secret the operator
/// gave, or (Apple) a key that each client secret is made with.
public enum WebClientSecret: Sendable, Equatable {
    case fixed(String)
    case apple(AppleSigningKey)
}
