//! TOML spec files naming channels by role.
