//! Which language to speak: the `--lang` flag, then the locale variables, then (Windows) the
//! user's UI language; for the page, the browser's `Accept-Language`.

use crate::Lang;

/// A `--lang` value no catalogue answers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLang(pub String);

impl UnknownLang {
    /// The error in `lang` (the language the locale chose, since the flag's is unknown).
    pub fn message(&self, lang: Lang) -> String {
        let codes: Vec<&str> = Lang::ALL.iter().map(|l| l.code()).collect();
        let args = [
            ("lang", self.0.as_str().into()),
            ("known", codes.join(", ").into()),
        ];
        lang.t_args("cli-unknown-lang", &args)
    }
}

impl std::fmt::Display for UnknownLang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for UnknownLang {}

/// The language of a tag, BCP 47 (`zh-Hant-HK`, `en-US`) or POSIX (`zh_TW.UTF-8@x`), when
/// gpuledger has it. Chinese goes by script, then region: Traditional for Taiwan, Hong Kong and
/// Macau, Simplified for the mainland, Singapore and a bare `zh`.
fn recognise(tag: &str) -> Option<Lang> {
    let tag = tag
        .split(['.', '@', ';'])
        .next()?
        .trim()
        .to_ascii_lowercase();
    let mut parts = tag.split(['-', '_']);
    match parts.next()? {
        "en" => Some(Lang::En),
        // C and POSIX are the untranslated locale: English.
        "c" | "posix" => Some(Lang::En),
        "zh" => {
            let rest: Vec<&str> = parts.collect();
            let traditional = rest
                .iter()
                .any(|p| matches!(*p, "hant" | "tw" | "hk" | "mo"));
            let simplified = rest.contains(&"hans");
            Some(if traditional && !simplified {
                Lang::ZhTw
            } else {
                Lang::ZhCn
            })
        }
        _ => None,
    }
}

/// The language of a locale variable's value (`LANG=zh_CN.UTF-8`): `None` when it is empty (the
/// next variable decides), English for any language gpuledger has no catalogue for.
pub fn from_locale(value: &str) -> Option<Lang> {
    if value.trim().is_empty() {
        return None;
    }
    Some(recognise(value).unwrap_or(Lang::En))
}

/// The language of a Windows LANGID (`GetUserDefaultUILanguage`): Chinese (primary 0x04) by its
/// sub-language, 0x0404 Taiwan, 0x0C04 Hong Kong and 0x1404 Macau Traditional, the rest (0x0804
/// PRC, 0x1004 Singapore) Simplified; every other language English.
pub fn from_windows_langid(id: u16) -> Lang {
    match (id & 0x3ff, id >> 10) {
        (0x04, 0x01 | 0x03 | 0x05) => Lang::ZhTw,
        (0x04, _) => Lang::ZhCn,
        _ => Lang::En,
    }
}

#[cfg(windows)]
fn windows_ui_language() -> Option<Lang> {
    #[link(name = "kernel32")]
    extern "system" {
        fn GetUserDefaultUILanguage() -> u16;
    }
    // SAFETY: no arguments, no pointers; it returns the user's LANGID.
    let id = unsafe { GetUserDefaultUILanguage() };
    Some(from_windows_langid(id))
}

#[cfg(not(windows))]
fn windows_ui_language() -> Option<Lang> {
    None
}

/// The language to speak: `--lang` when given (an unknown one is an error, not a silent
/// English), else GNU `LANGUAGE` (below), else the first non-empty of `LC_ALL`, `LC_MESSAGES`,
/// `LANG` (as POSIX orders them), else the Windows user's UI language, else English.
pub fn choose(flag: Option<&str>) -> Result<Lang, UnknownLang> {
    choose_from(flag, |k| std::env::var(k).ok(), windows_ui_language)
}

pub(crate) fn choose_from(
    flag: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
    system: impl Fn() -> Option<Lang>,
) -> Result<Lang, UnknownLang> {
    if let Some(f) = flag {
        return recognise(f).ok_or_else(|| UnknownLang(f.to_string()));
    }
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|k| env(k).filter(|v| !v.trim().is_empty()));
    let Some(locale) = locale else {
        return Ok(system().unwrap_or_default());
    };
    let language = env("LANGUAGE").and_then(|list| from_language_list(&list, &locale));
    Ok(language
        .or_else(|| from_locale(&locale))
        .unwrap_or_default())
}

/// GNU gettext's `LANGUAGE` (`zh_TW:zh_CN:en`): the first entry gpuledger has a catalogue for,
/// skipping the others. As gettext does, it is read only when the message locale is set and is
/// not C or POSIX (`LANGUAGE` set under a C locale would otherwise translate programs the locale
/// says to keep untranslated).
fn from_language_list(list: &str, locale: &str) -> Option<Lang> {
    let base = locale.split(['.', '@']).next().unwrap_or("").trim();
    if base.eq_ignore_ascii_case("c") || base.eq_ignore_ascii_case("posix") {
        return None;
    }
    list.split(':')
        .filter(|t| !t.trim().is_empty())
        .find_map(|t| match recognise(t)? {
            // `C` inside the list is no language.
            Lang::En if !t.trim().to_ascii_lowercase().starts_with("en") => None,
            l => Some(l),
        })
}

/// The page's language from the browser's `Accept-Language` (`zh-TW,zh;q=0.9,en;q=0.8`): the
/// most preferred language gpuledger has (by `q`, then order), English when none.
pub fn from_accept_language(header: &str) -> Lang {
    let mut prefs: Vec<(f32, usize, Lang)> = header
        .split(',')
        .enumerate()
        .filter_map(|(i, item)| {
            let mut parts = item.split(';');
            let lang = recognise(parts.next()?.trim())?;
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (q > 0.0).then_some((q, i, lang))
        })
        .collect();
    prefs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    prefs.first().map(|p| p.2).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k: &str| vars.iter().find(|v| v.0 == k).map(|v| v.1.to_string())
    }

    #[test]
    fn posix_locales_map_to_the_two_scripts() {
        for (v, want) in [
            ("zh_CN.UTF-8", Lang::ZhCn),
            ("zh_SG.GB2312", Lang::ZhCn),
            ("zh_TW.UTF-8", Lang::ZhTw),
            ("zh_HK.UTF-8", Lang::ZhTw),
            ("zh_MO", Lang::ZhTw),
            ("zh_TW.Big5@stroke", Lang::ZhTw),
            ("en_US.UTF-8", Lang::En),
            ("de_DE.UTF-8", Lang::En),
            ("C.UTF-8", Lang::En),
            ("POSIX", Lang::En),
        ] {
            assert_eq!(from_locale(v), Some(want), "{v}");
        }
        assert_eq!(from_locale(""), None);
    }

    #[test]
    fn the_flag_then_lc_all_lc_messages_lang_then_the_system() {
        let none = || None;
        let tw = || Some(Lang::ZhTw);
        let all = [("LC_ALL", "zh_TW.UTF-8"), ("LANG", "zh_CN.UTF-8")];
        assert_eq!(choose_from(Some("en"), env(&all), none), Ok(Lang::En));
        assert_eq!(choose_from(None, env(&all), none), Ok(Lang::ZhTw));
        let msgs = [("LC_ALL", ""), ("LC_MESSAGES", "zh_SG"), ("LANG", "en")];
        assert_eq!(choose_from(None, env(&msgs), none), Ok(Lang::ZhCn));
        assert_eq!(choose_from(None, env(&[]), tw), Ok(Lang::ZhTw));
        assert_eq!(choose_from(None, env(&[]), none), Ok(Lang::En));
        // A locale variable that is set wins over the system, even when it is not Chinese.
        assert_eq!(
            choose_from(None, env(&[("LANG", "fr_FR")]), tw),
            Ok(Lang::En)
        );
        let bad = choose_from(Some("klingon"), env(&[]), none).unwrap_err();
        assert!(bad.to_string().contains("en, zh-CN, zh-TW"), "{bad}");
        for tag in ["zh-Hant", "zh-HK", "ZH_tw"] {
            assert_eq!(
                choose_from(Some(tag), env(&[]), none),
                Ok(Lang::ZhTw),
                "{tag}"
            );
        }
        assert_eq!(
            choose_from(Some("zh-Hans-HK"), env(&[]), none),
            Ok(Lang::ZhCn)
        );
    }

    /// GNU `LANGUAGE` comes before the locale variables, its first known entry wins, and it is
    /// ignored when the locale is C or POSIX or unset, as gettext's `guess_category_value` does.
    #[test]
    fn gnu_language_list_before_the_locale_unless_it_is_c() {
        let none = || None;
        let tw = || Some(Lang::ZhTw);
        let got = |vars: &[(&str, &str)]| choose_from(None, env(vars), none).unwrap();
        let l = |list, lang| [("LANGUAGE", list), ("LANG", lang)];
        assert_eq!(got(&l("zh_TW:zh_CN", "en_US.UTF-8")), Lang::ZhTw);
        assert_eq!(got(&l("de:fr:zh_CN:en", "de_DE.UTF-8")), Lang::ZhCn);
        assert_eq!(got(&l("en:zh_CN", "zh_TW.UTF-8")), Lang::En);
        // Nothing known in the list: the locale decides.
        assert_eq!(got(&l("de:fr", "zh_HK.UTF-8")), Lang::ZhTw);
        assert_eq!(got(&l("", "zh_CN.UTF-8")), Lang::ZhCn);
        assert_eq!(got(&l("C:zh_TW", "en_GB")), Lang::ZhTw);
        // A C or POSIX locale keeps the program untranslated.
        for c in ["C", "POSIX", "C.UTF-8"] {
            assert_eq!(got(&l("zh_TW", c)), Lang::En, "{c}");
        }
        let all = [("LANGUAGE", "zh_CN"), ("LC_ALL", "C"), ("LANG", "zh_TW")];
        assert_eq!(got(&all), Lang::En);
        // No locale at all is C too: the system (Windows) decides, LANGUAGE does not.
        assert_eq!(
            choose_from(None, env(&[("LANGUAGE", "zh_CN")]), tw),
            Ok(Lang::ZhTw)
        );
        // --lang still wins.
        assert_eq!(
            choose_from(Some("en"), env(&l("zh_TW", "zh_TW")), none),
            Ok(Lang::En)
        );
    }

    #[test]
    fn windows_langids() {
        assert_eq!(from_windows_langid(0x0804), Lang::ZhCn);
        assert_eq!(from_windows_langid(0x1004), Lang::ZhCn);
        assert_eq!(from_windows_langid(0x0404), Lang::ZhTw);
        assert_eq!(from_windows_langid(0x0C04), Lang::ZhTw);
        assert_eq!(from_windows_langid(0x1404), Lang::ZhTw);
        assert_eq!(from_windows_langid(0x0409), Lang::En);
        assert_eq!(from_windows_langid(0x0411), Lang::En);
    }

    #[test]
    fn accept_language_by_weight_then_order() {
        assert_eq!(from_accept_language("zh-TW,zh;q=0.9,en;q=0.8"), Lang::ZhTw);
        assert_eq!(
            from_accept_language("fr-FR, zh-HK;q=0.5, en;q=0.4"),
            Lang::ZhTw
        );
        assert_eq!(from_accept_language("en;q=0.3, zh-CN;q=0.7"), Lang::ZhCn);
        assert_eq!(from_accept_language("zh-CN;q=0, de"), Lang::En);
        assert_eq!(from_accept_language("*"), Lang::En);
        assert_eq!(from_accept_language(""), Lang::En);
        assert_eq!(from_accept_language("zh"), Lang::ZhCn);
    }
}
