/// Placeholder until issue 5 lands.
enum MapAppPlaceholder {}
