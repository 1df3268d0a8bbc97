//! Colours. Monochrome uses only bold / reverse / dim, so the view still reads on a terminal with
//! no colour and under `NO_COLOR` (<https://no-color.org>).

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeKind {
    Dark,
    Light,
    Mono,
}

impl ThemeKind {
    pub fn name(self) -> &'static str {
        match self {
            ThemeKind::Dark => "dark",
            ThemeKind::Light => "light",
            ThemeKind::Mono => "mono",
        }
    }

    pub fn next(self) -> ThemeKind {
        match self {
            ThemeKind::Dark => ThemeKind::Light,
            ThemeKind::Light => ThemeKind::Mono,
            ThemeKind::Mono => ThemeKind::Dark,
        }
    }

    /// `NO_COLOR` set to anything non-empty forces monochrome, whatever was asked for.
    pub fn resolve(asked: ThemeKind, no_color: Option<&str>) -> ThemeKind {
        match no_color {
            Some(v) if !v.is_empty() => ThemeKind::Mono,
            _ => asked,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub kind: ThemeKind,
    pub base: Style,
    pub title: Style,
    pub header: Style,
    pub selected: Style,
    pub bar: Style,
    pub bar_empty: Style,
    pub dim: Style,
    pub warn: Style,
    pub estimate: Style,
    pub accent: Style,
    pub gpu_line: Style,
    pub mem_line: Style,
}

impl Theme {
    pub fn new(kind: ThemeKind) -> Theme {
        let s = Style::default();
        match kind {
            ThemeKind::Dark => Theme {
                kind,
                base: s,
                title: s.fg(Color::Cyan).add_modifier(Modifier::BOLD),
                header: s.fg(Color::Yellow).add_modifier(Modifier::BOLD),
                selected: s.bg(Color::DarkGray).add_modifier(Modifier::BOLD),
                bar: s.fg(Color::Green),
                bar_empty: s.fg(Color::DarkGray),
                dim: s.fg(Color::Gray),
                warn: s.fg(Color::LightRed).add_modifier(Modifier::BOLD),
                estimate: s.fg(Color::Magenta),
                accent: s.fg(Color::LightBlue),
                gpu_line: s.fg(Color::Yellow),
                mem_line: s.fg(Color::Green),
            },
            ThemeKind::Light => Theme {
                kind,
                base: s,
                title: s.fg(Color::Blue).add_modifier(Modifier::BOLD),
                header: s
                    .fg(Color::Black)
                    .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                selected: s.bg(Color::Gray).fg(Color::Black),
                bar: s.fg(Color::Blue),
                bar_empty: s.fg(Color::Gray),
                dim: s.fg(Color::DarkGray),
                warn: s.fg(Color::Red).add_modifier(Modifier::BOLD),
                estimate: s.fg(Color::Magenta),
                accent: s.fg(Color::Blue),
                gpu_line: s.fg(Color::Red),
                mem_line: s.fg(Color::Blue),
            },
            ThemeKind::Mono => Theme {
                kind,
                base: s,
                title: s.add_modifier(Modifier::BOLD),
                header: s.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                selected: s.add_modifier(Modifier::REVERSED),
                bar: s,
                bar_empty: s.add_modifier(Modifier::DIM),
                dim: s.add_modifier(Modifier::DIM),
                warn: s.add_modifier(Modifier::BOLD),
                estimate: s.add_modifier(Modifier::ITALIC),
                accent: s,
                gpu_line: s,
                mem_line: s.add_modifier(Modifier::BOLD),
            },
        }
    }

    /// True when no style of this theme sets a colour.
    pub fn is_colourless(&self) -> bool {
        [
            self.base,
            self.title,
            self.header,
            self.selected,
            self.bar,
            self.bar_empty,
            self.dim,
            self.warn,
            self.estimate,
            self.accent,
            self.gpu_line,
            self.mem_line,
        ]
        .iter()
        .all(|s| s.fg.is_none() && s.bg.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_forces_mono() {
        assert_eq!(
            ThemeKind::resolve(ThemeKind::Dark, Some("1")),
            ThemeKind::Mono
        );
        assert_eq!(
            ThemeKind::resolve(ThemeKind::Light, Some("")),
            ThemeKind::Light
        );
        assert_eq!(ThemeKind::resolve(ThemeKind::Light, None), ThemeKind::Light);
        assert!(Theme::new(ThemeKind::Mono).is_colourless());
        assert!(!Theme::new(ThemeKind::Dark).is_colourless());
    }
}
