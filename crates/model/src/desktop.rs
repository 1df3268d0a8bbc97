//! The desktop's own programs, by name: the one list of each. Identification reads them (a
//! compositor's GPU memory is the screen's, a browser's GPU process draws its pages) and so do
//! the kill guard rails (ending a display server ends the session). Names are compared as
//! [`normalise_name`] writes them.

/// Display servers, compositors, window managers, desktop shells and display managers: the
/// graphical session hangs from each (killing one ends it), and what GPU memory one holds is the
/// desktop's.
pub const DISPLAY_SERVERS: &[&str] = &[
    "x",
    "xorg",
    "xorg.bin",
    "xwayland",
    "gnome-shell",
    "kwin",
    "kwin_x11",
    "kwin_wayland",
    "hyprland",
    "sway",
    "weston",
    "mutter",
    "wayfire",
    "labwc",
    "niri",
    "cosmic-comp",
    "plasmashell",
    "river",
    "gamescope",
    "cinnamon",
    "budgie-wm",
    "xfwm4",
    "marco",
    "picom",
    "compiz",
    "gdm-wayland-session",
    "gdm-x-session",
    "sddm",
    "dwm",
    "explorer",
    "windowserver",
];

/// Web browsers (their GPU process draws every page).
pub const BROWSERS: &[&str] = &[
    "chrome",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "msedge",
    "brave",
    "opera",
    "vivaldi",
    "firefox",
    "firefox-bin",
    "firefox-esr",
    "librewolf",
];

/// Lower-case, without a directory and without a trailing `.exe`: the form the lists above use.
pub fn normalise_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    match lower.strip_suffix(".exe") {
        Some(stem) => stem.to_string(),
        None => lower,
    }
}

/// Whether `name` (any case, with or without a directory or `.exe`) is in [`DISPLAY_SERVERS`].
pub fn is_display_server(name: &str) -> bool {
    DISPLAY_SERVERS.contains(&normalise_name(name).as_str())
}

/// Whether `name` (as [`is_display_server`] reads it) is in [`BROWSERS`].
pub fn is_browser(name: &str) -> bool {
    BROWSERS.contains(&normalise_name(name).as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_in_any_case_path_or_exe_form() {
        assert!(is_display_server("/usr/lib/xorg/Xorg"));
        assert!(is_display_server("dwm.exe"));
        assert!(is_display_server("WindowServer"));
        assert!(!is_display_server("llama-server"));
        assert!(is_browser("firefox.exe"));
        assert!(!is_browser("Xorg"));
    }
}
