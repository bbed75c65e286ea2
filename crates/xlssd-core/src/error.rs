//! Errors the simulator reports to its user. Each says what went wrong and where: the config
//! key, or the file and line of a trace.
//!
//! Whatever an error quotes from its input (a trace line, a field, a key, a path) is shown
//! through [`printable`], so that a control byte or an escape sequence in a bad input cannot
//! reach the user's terminal.

use std::fmt::Write as _;

use thiserror::Error;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A config key is unknown, of the wrong type, or out of range.
    #[error("config key `{}`: {}", printable(.key, usize::MAX), printable(.message, usize::MAX))]
    Config { key: String, message: String },

    /// A trace line could not be parsed.
    #[error("{}:{line}: {}: `{}`", printable(.file, usize::MAX), printable(.message, usize::MAX), printable(.text, usize::MAX))]
    Trace { file: String, line: u64, text: String, message: String },

    /// A file could not be opened or read.
    #[error("{}: {}", printable(.path, usize::MAX), printable(.message, usize::MAX))]
    Io { path: String, message: String },

    /// A request addresses space the device does not have.
    #[error("{}: request {index} addresses sectors {first}..{end}, beyond the logical capacity of {capacity} sectors (to fold addresses into the device, set host.address_mode = \"wrap\" or pass --address-mode wrap)", printable(.source_name, usize::MAX))]
    Address { source_name: String, index: u64, first: u64, end: u64, capacity: u64 },

    /// The invariant checker found the FTL state inconsistent: a bug, not a user error.
    #[error("invariant violated at t={time_ns} ns: {message}")]
    Invariant { time_ns: u64, message: String },

    /// The run was stopped by its caller (for example Ctrl-C).
    #[error("interrupted")]
    Interrupted,

    /// The simulation cannot proceed (for example, the device is full of valid data).
    #[error("simulation stalled: {0}")]
    Stalled(String),
}

/// `text` as a message may show it: every character a terminal would not print as itself
/// (C0 and C1 controls, DEL, and the invisible formatting characters such as bidirectional
/// overrides) written as an escape (`\x1b`, `\t`, `\u{202e}`), and the result cut to
/// `max_chars` characters, the cut marked with "..." (an escape is never cut in half).
/// Backslashes are kept as they are, so that escaping text twice changes nothing.
pub fn printable(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let budget = max_chars.saturating_sub(3);
    // Characters written so far, and the length of `out` when the last whole character
    // that leaves room for "..." was written.
    let (mut shown, mut fits) = (0usize, 0usize);
    for c in text.chars() {
        if !needs_escape(c) {
            out.push(c);
            shown += 1;
        } else {
            let before = out.len();
            if (c as u32) < 0x100 {
                match c {
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    _ => {
                        let _ = write!(out, "\\x{:02x}", c as u32);
                    }
                }
            } else {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            // Escapes are ASCII: one character per byte.
            shown += out.len() - before;
        }
        if shown <= budget {
            fits = out.len();
        }
        if shown > max_chars {
            out.truncate(fits);
            out.push_str("...");
            return out;
        }
    }
    out
}

/// `message` with every span quoted in backticks or double quotes (the way serde quotes a
/// field or a value it read) cut by [`printable`] to `max_quoted` characters, and the whole
/// cut to `max_chars`: a message about a huge key or value names it without repeating it.
pub fn shorten_quoted(message: &str, max_quoted: usize, max_chars: usize) -> String {
    let mut out = String::with_capacity(message.len().min(max_chars));
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = &rest[open..open + 1];
        let Some(len) = rest[open + 1..].find(quote) else { break };
        out.push_str(&rest[..=open]);
        out.push_str(&printable(&rest[open + 1..open + 1 + len], max_quoted));
        out.push_str(quote);
        rest = &rest[open + 1 + len + 1..];
    }
    out.push_str(rest);
    printable(&out, max_chars)
}

/// True for characters Rust's own debug formatting would not print as themselves, other
/// than the quotes and the backslash it escapes for its own syntax.
fn needs_escape(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    !matches!(c, '\\' | '"' | '\'') && c.escape_debug().nth(1).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bytes_and_escape_sequences_are_escaped() {
        assert_eq!(printable("a\x1b[31mred\x07\tb\r\n\0\x7f", usize::MAX), "a\\x1b[31mred\\x07\\tb\\r\\n\\x00\\x7f");
        assert_eq!(printable("\u{9b}2J \u{202e}evil \u{200b}", usize::MAX), "\\x9b2J \\u{202e}evil \\u{200b}");
        assert_eq!(printable("plain é ü 日本 \\x1b 'q' \"d\"", usize::MAX), "plain é ü 日本 \\x1b 'q' \"d\"");
        let once = printable("\x1b]0;title\x07", usize::MAX);
        assert_eq!(printable(&once, usize::MAX), once);
    }

    #[test]
    fn long_text_is_cut_on_a_character_boundary() {
        assert_eq!(printable("short", 5), "short");
        assert_eq!(printable("abcdef", 5), "ab...");
        let cut = printable(&"é".repeat(500), 200);
        assert_eq!(cut.chars().count(), 200);
        assert!(cut.ends_with("..."));
        assert_eq!(printable("", 0), "");
        // The limit counts the characters shown, escapes included, and cuts none in half.
        let cut = printable(&"\0".repeat(500), 200);
        assert_eq!(cut.chars().count(), 199);
        assert!(cut.starts_with("\\x00\\x00") && cut.ends_with("\\x00..."), "{cut}");
        assert_eq!(printable("\0\0", 8), "\\x00\\x00");
        assert_eq!(printable("\0\0a", 8), "\\x00...");
    }

    #[test]
    fn quoted_spans_are_cut_and_the_rest_kept() {
        let long = "k".repeat(500);
        let msg = format!("unknown field `{long}`, expected one of `seed`, `geometry`; string \"{long}\"");
        let short = shorten_quoted(&msg, 10, 1000);
        assert_eq!(short, "unknown field `kkkkkkk...`, expected one of `seed`, `geometry`; string \"kkkkkkk...\"");
        assert_eq!(shorten_quoted("an `unclosed quote", 5, 100), "an `unclosed quote");
        assert_eq!(shorten_quoted(&"x".repeat(50), 5, 20).chars().count(), 20);
    }

    #[test]
    fn errors_show_their_inputs_escaped() {
        let e = Error::Trace { file: "t\x1b.trace".into(), line: 3, text: "1 \x1b[2J".into(), message: "type `\x1b`".into() };
        assert_eq!(e.to_string(), "t\\x1b.trace:3: type `\\x1b`: `1 \\x1b[2J`");
        let e = Error::Config { key: "a\x1bb".into(), message: "unknown field `\x1b`".into() };
        assert!(!e.to_string().contains('\x1b'), "{e}");
    }
}
