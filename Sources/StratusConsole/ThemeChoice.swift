/// One button of the header's colour scheme switch (System, Light, Dark), pressed when it is the admin's choice.
struct ThemeChoice: Encodable { let value, label: String; let current: Bool }
