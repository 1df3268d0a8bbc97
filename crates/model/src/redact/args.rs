//! Command lines as argument lists: what one argument says about the next (`--api-key X`,
//! `-H 'Authorization: Bearer X'`, `-u user:X`, mysql's `-p X`), glued short options of the
//! common clients (curl's `-HAuthorization:…` and `-uuser:X`, mysql's `-pX`, redis-cli's `-a`),
//! and the text inside each argument ([`super::text`]).

use super::names::{is_auth_scheme, is_plain_name, strength, Strength};
use super::text::{hides, name_before, redact_value};
use super::REDACTED;

/// What the previous argument said about the next one.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum Next {
    #[default]
    Plain,
    /// After `--api-key`, `Authorization:`, mysql's `-p`: the value is hidden as the name's
    /// strength says. An auth scheme (`Bearer`) is kept and the word after it hidden; an empty
    /// value (`--api-key "" X`) passes the duty on to the next argument. `short`: announced by a
    /// client's one-letter option, so any following option (`-h`) is not the value.
    Value { strength: Strength, short: bool },
    /// After `-H` / `--header`: an HTTP header.
    Header,
    /// After curl's `-u` / `--user`: `user:password`.
    UserPass,
    /// After a secret's name as a word of its own (`Authorization`): a lone `=` or `:` or an
    /// auth scheme next makes the word after it the value (`Authorization = Bearer X`).
    Name { strength: Strength },
    /// After a bare auth scheme (`Bearer X` with no header name): the next word is hidden unless
    /// it reads as a word of prose (`Bearer of bad news`).
    BareScheme,
}

/// A client whose one-letter options take a password: its program names, those letters, and
/// whether they mean a password only after a `login` word (`docker login -p X`, not
/// `docker run -p 8080:80`).
struct Client {
    names: &'static [&'static str],
    shorts: &'static str,
    login: bool,
}

const CLIENTS: &[Client] = &[
    Client {
        names: &[
            "mysql",
            "mysqldump",
            "mysqladmin",
            "mysqlimport",
            "mysqlcheck",
            "mysqlshow",
            "mysqlslap",
            "mysqlpump",
            "mysqlsh",
            "mariadb",
            "mariadb-dump",
            "mariadb-admin",
            "mariadb-import",
            "mariadb-check",
        ],
        shorts: "p",
        login: false,
    },
    Client {
        names: &[
            "mongo",
            "mongosh",
            "mongodump",
            "mongorestore",
            "mongoexport",
            "mongoimport",
            "mongostat",
            "mongotop",
            "mongofiles",
        ],
        shorts: "p",
        login: false,
    },
    Client {
        names: &["sshpass", "7z", "7za", "7zz", "7zr"],
        shorts: "p",
        login: false,
    },
    Client {
        names: &["redis-cli", "valkey-cli", "keydb-cli"],
        shorts: "a",
        login: false,
    },
    Client {
        names: &["sqlcmd", "bcp", "ipmitool", "zip", "unzip"],
        shorts: "P",
        login: false,
    },
    // curl's `-b name=value` is a cookie.
    Client {
        names: &["curl"],
        shorts: "b",
        login: false,
    },
    Client {
        names: &[
            "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras",
        ],
        shorts: "p",
        login: true,
    },
];

/// The program a word names, if it is one of [`CLIENTS`]: its base name without `.exe`.
fn client(word: &str) -> Option<&'static Client> {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let base = base
        .strip_suffix(".exe")
        .or_else(|| base.strip_suffix(".EXE"))
        .unwrap_or(base);
    CLIENTS.iter().find(|c| c.names.contains(&base))
}

/// Auth schemes that, as a word of their own, announce a credential next (`Bearer X`); `token`
/// is left out, being a common word with no credential after it.
fn is_bare_scheme(word: &str) -> bool {
    is_auth_scheme(word) && !word.eq_ignore_ascii_case("token")
}

/// A word of prose rather than a credential: letters only (a capital first at most), or a short
/// number.
fn reads_as_prose(w: &str) -> bool {
    let rest = w
        .strip_prefix(|c: char| c.is_ascii_uppercase())
        .unwrap_or(w);
    (!w.is_empty() && rest.chars().all(|c| c.is_ascii_lowercase()))
        || (w.len() <= 4 && w.chars().all(|c| c.is_ascii_digit()))
}

/// Option names whose value is an HTTP header (curl, wget, httpie-style tools).
fn is_header_flag(arg: &str) -> bool {
    arg == "-H" || arg.trim_start_matches('-').eq_ignore_ascii_case("header")
}

/// Option names whose value is `user:password` (curl `-u`, `-U`, `--user`, `--proxy-user`).
fn is_userpass_flag(arg: &str) -> bool {
    matches!(arg, "-u" | "-U" | "--user" | "--proxy-user")
}

/// `user:password` with the password hidden; `None` when the text is not one (no colon, an
/// option, or a `uid:gid` as in `docker run -u 1000:1000`).
fn user_pass(a: &str) -> Option<String> {
    let (user, pass) = a.split_once(':')?;
    let ids = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    if a.starts_with('-') || (ids(user) && ids(pass)) {
        return None;
    }
    Some(if pass.is_empty() {
        a.to_string()
    } else {
        format!("{user}:{REDACTED}")
    })
}

/// An HTTP header `Name: value`: the value goes when the name carries a secret (`Authorization`,
/// `X-Api-Key`, `Cookie`, `Proxy-Authorization`). A name alone, or with only its scheme
/// (`Authorization: Bearer` split into words), hides the next word instead.
/// `Authorization=Bearer X` (a header written as an assignment, `--header=Authorization=…`)
/// counts too: the name ends at the first `:` or `=`.
fn header(h: &str) -> (String, Next) {
    if let Some(i) = h.find([':', '=']) {
        let (name, value) = (&h[..i], &h[i + 1..]);
        let n = name.trim();
        if is_plain_name(n) && strength(n) >= Strength::Weak {
            let v = value.trim();
            if v.is_empty() || is_auth_scheme(v) {
                let next = Next::Value {
                    strength: Strength::Strong,
                    short: false,
                };
                return (h.to_string(), next);
            }
            let sep = if h.as_bytes()[i] == b':' { ": " } else { "=" };
            return (format!("{name}{sep}{REDACTED}"), Next::Plain);
        }
    }
    (redact_value(h), Next::Plain)
}

/// Whether a glued `-H…` carries a header (`-HAuthorization: Bearer X`), not other letters.
fn looks_like_header(rest: &str) -> bool {
    rest.split_once(':')
        .is_some_and(|(name, _)| is_plain_name(name.trim()))
}

/// Walks one argument list (or the words of one shell string), carrying what each argument
/// announces and which client is running.
#[derive(Default)]
pub(crate) struct Walker {
    next: Next,
    /// The running client's password letters (`p` for mysql, `a` for redis-cli).
    shorts: &'static str,
    /// A client whose letters count after a `login` word.
    login: Option<&'static str>,
}

impl Walker {
    /// One argument, redacted; remembers what it announces.
    pub(crate) fn arg(&mut self, a: &str) -> String {
        match std::mem::take(&mut self.next) {
            Next::Plain => {}
            Next::Value { strength, short } => {
                let option = a.starts_with("--") || (short && a.len() > 1 && a.starts_with('-'));
                if !option {
                    if a.is_empty() || is_auth_scheme(a) {
                        // `--api-key "" X`, `Authorization: Bearer X`: the next one is the value.
                        let strength = strength.max(Strength::Weak);
                        self.next = Next::Value { strength, short };
                        return a.to_string();
                    }
                    if hides(strength, a) {
                        return REDACTED.to_string();
                    }
                    return redact_value(a);
                }
            }
            Next::Header if !(a.len() > 1 && a.starts_with('-')) => {
                let (r, next) = header(a);
                self.next = next;
                return r;
            }
            Next::Header => {}
            Next::UserPass => {
                if let Some(r) = user_pass(a) {
                    return r;
                }
            }
            Next::Name { strength } if matches!(a, "=" | ":") || is_auth_scheme(a) => {
                let strength = if is_auth_scheme(a) {
                    Strength::Strong
                } else {
                    strength
                };
                self.next = Next::Value {
                    strength,
                    short: false,
                };
                return a.to_string();
            }
            Next::Name { .. } => {}
            Next::BareScheme if !a.starts_with('-') && !reads_as_prose(a) => {
                return REDACTED.to_string();
            }
            Next::BareScheme => {}
        }
        self.note_program(a);
        if a.len() > 1 && a.starts_with('-') {
            return self.option(a);
        }
        self.word(a)
    }

    /// Which client runs: a program name sets its letters; a shell separator ends them.
    fn note_program(&mut self, a: &str) {
        if matches!(a, ";" | "&&" | "||" | "|") {
            self.shorts = "";
            self.login = None;
        } else if a == "login" {
            if let Some(l) = self.login.take() {
                self.shorts = l;
            }
        } else if let Some(c) = client(a) {
            if c.login {
                self.login = Some(c.shorts);
                self.shorts = "";
            } else {
                self.shorts = c.shorts;
            }
        }
    }

    /// An argument starting with `-`.
    fn option(&mut self, a: &str) -> String {
        let body = a.trim_start_matches('-');
        let dashes = a.len() - body.len();
        // `--name=value`, `-Dname=value`.
        if let Some((name, value)) = body.split_once('=') {
            if is_plain_name(name) {
                let flag = &a[..dashes + name.len()];
                if is_header_flag(flag) {
                    let (v, next) = header(value);
                    self.next = next;
                    return format!("{flag}={v}");
                }
                if is_userpass_flag(flag) {
                    if let Some(r) = user_pass(value) {
                        return format!("{flag}={r}");
                    }
                }
                if hides(strength(name), value) {
                    return format!("{flag}={REDACTED}");
                }
                return format!("{flag}={}", redact_value(value));
            }
        }
        if dashes == 1 {
            if let Some(r) = self.glued(body) {
                return r;
            }
        }
        if dashes == 1 && body.len() == 1 && self.shorts.contains(body) {
            self.next = Next::Value {
                strength: Strength::Strong,
                short: true,
            };
            return a.to_string();
        }
        if is_header_flag(a) {
            self.next = Next::Header;
            return a.to_string();
        }
        if is_userpass_flag(a) {
            self.next = Next::UserPass;
            return a.to_string();
        }
        if is_plain_name(body) {
            let st = strength(body);
            if st > Strength::None {
                self.next = Next::Value {
                    strength: st,
                    short: false,
                };
                return a.to_string();
            }
        }
        redact_value(a)
    }

    /// A one-letter option glued to its value: `-HAuthorization: Bearer X`, `-uuser:X`, and a
    /// running client's password letter (`-pX` for mysql, `-aX` for redis-cli).
    fn glued(&mut self, body: &str) -> Option<String> {
        let letter = body.chars().next()?;
        let rest = &body[letter.len_utf8()..];
        if rest.is_empty() {
            return None;
        }
        match letter {
            'H' if looks_like_header(rest) => {
                let (v, next) = header(rest);
                self.next = next;
                Some(format!("-H{v}"))
            }
            'u' | 'U' => user_pass(rest).map(|r| format!("-{letter}{r}")),
            l if self.shorts.contains(l) => Some(format!("-{l}{REDACTED}")),
            _ => None,
        }
    }

    /// An argument that is not an option.
    fn word(&mut self, a: &str) -> String {
        if a.contains(char::is_whitespace) {
            // A whole command line or text in one argument (`sh -c "..."`).
            return super::redact_text(a);
        }
        if is_bare_scheme(a) {
            self.next = Next::BareScheme;
            return a.to_string();
        }
        if is_plain_name(a) && strength(a) >= Strength::Weak {
            self.next = Next::Name {
                strength: strength(a),
            };
            // The word itself may be a token whose prefix reads as a name (`github_pat_…`).
            return redact_value(a);
        }
        // `api_key:` (a YAML-ish or header-ish name alone, also at the end of a word such as
        // `http.extraHeader=Authorization:`) hides what follows it; `Authorization:Bearer` and
        // `Authorization=Bearer` keep their scheme and hide what follows.
        if let Some((head, rest)) = a.rsplit_once([':', '=']) {
            if rest.is_empty() || is_auth_scheme(rest) {
                let st = strength(name_before(head));
                if st > Strength::None {
                    let strength = if rest.is_empty() {
                        st
                    } else {
                        Strength::Strong
                    };
                    self.next = Next::Value {
                        strength,
                        short: false,
                    };
                    return redact_value(a);
                }
            }
        }
        redact_value(a)
    }
}
