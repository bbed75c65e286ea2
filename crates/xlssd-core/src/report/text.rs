//! The report's JSON text, written exactly as Python's `json.dumps(report, indent=2)` writes
//! it: two-space indents, floats as Python's `repr` gives them (`1e-05`, `1e+16`, `2.0`),
//! every character outside printable ASCII as a `\uXXXX` escape. The command line can then
//! write the core's text as it comes, instead of decoding and encoding it again in Python
//! (about 10 ms of every run), and the files are the same byte for byte as before.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};

/// `value` as Python's `json.dumps(value, indent=2)` would write it (without a final newline).
pub fn to_python_json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(64 * 1024);
    let mut ser = Serializer::with_formatter(&mut out, PythonFormatter { pretty: PrettyFormatter::with_indent(b"  ") });
    value.serialize(&mut ser).expect("a report serialises: every map key is a string");
    String::from_utf8(out).expect("the text is ASCII: everything else is escaped")
}

/// Python's `repr` of a finite float: the shortest digits that read back as `x`, positional
/// when the decimal point falls within 16 digits of them and scientific otherwise, with a
/// `.0` on a whole number and at least two exponent digits.
fn python_float(x: f64) -> String {
    debug_assert!(x.is_finite(), "JSON has no text for {x}");
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    // `{:e}` writes the shortest round-tripping digits, as Python's repr chooses them.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` writes an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().expect("`{:e}` writes an integer exponent");
    // The value is 0.DIGITS x 10^point.
    let point = exp + 1;
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let n = digits.len() as i32;
    if point <= -4 || point > 16 {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let e = point - 1;
        let esign = if e < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}e{esign}{:02}", e.abs());
    }
    if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
    } else if point >= n {
        format!("{sign}{digits}{}.0", "0".repeat((point - n) as usize))
    } else {
        let (whole, frac) = digits.split_at(point as usize);
        format!("{sign}{whole}.{frac}")
    }
}

/// Methods of the layout (brackets, commas, indents), left to serde_json's pretty printer.
macro_rules! delegate_layout {
    ($($name:ident($($arg:ident: $ty:ty)?)),* $(,)?) => {
        $(fn $name<W: ?Sized + Write>(&mut self, w: &mut W $(, $arg: $ty)?) -> io::Result<()> {
            self.pretty.$name(w $(, $arg)?)
        })*
    };
}

/// serde_json's pretty layout, with Python's floats and ASCII-only strings.
struct PythonFormatter {
    pretty: PrettyFormatter<'static>,
}

impl Formatter for PythonFormatter {
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        w.write_all(python_float(value).as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        // Python reads an f32's shortest digits back as the f64 nearest them, whose shortest
        // digits are the same (any decimal of up to 15 digits survives an f64).
        let as_read: f64 = value.to_string().parse().expect("an f32's text reads as an f64");
        self.write_f64(w, as_read)
    }

    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, fragment: &str) -> io::Result<()> {
        // Python's ensure_ascii: anything but printable ASCII as UTF-16 escapes (the control
        // characters and quotes serde_json escapes itself, the same way Python does).
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if (' '..='~').contains(&c) {
                continue;
            }
            w.write_all(fragment[start..i].as_bytes())?;
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                write!(w, "\\u{u:04x}")?;
            }
            start = i + c.len_utf8();
        }
        w.write_all(fragment[start..].as_bytes())
    }

    delegate_layout! {
        begin_array(), end_array(), begin_array_value(first: bool), end_array_value(),
        begin_object(), end_object(), begin_object_key(first: bool), begin_object_value(),
        end_object_value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected texts are Python 3's `repr` of each float, as its documentation and
    // `float.__repr__` give them.
    #[test]
    fn floats_are_written_as_python_writes_them() {
        for (x, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (2.0, "2.0"),
            (0.1, "0.1"),
            (-1.5, "-1.5"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (1e-05, "1e-05"),
            (1.5e-05, "1.5e-05"),
            (1e16, "1e+16"),
            (1.2345e16, "1.2345e+16"),
            (1e15, "1000000000000000.0"),
            (1234567890123456.0, "1234567890123456.0"),
            (123.456, "123.456"),
            (1381924.0, "1381924.0"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (1e100, "1e+100"),
            (0.30000000000000004, "0.30000000000000004"),
        ] {
            assert_eq!(python_float(x), text, "{x:?}");
        }
    }

    #[test]
    fn text_is_ascii_with_python_escapes_and_layout() {
        #[derive(Serialize)]
        struct Sample {
            a: serde_json::Value,
            b: &'static str,
            c: Vec<u8>,
            d: f32,
            e: f32,
        }
        let v = Sample { a: serde_json::json!([1, 2.5, {}]), b: "tr\u{e5}ce \u{1f600}\u{7f}\"\n", c: vec![], d: 1e-7, e: 0.1 };
        // What `json.dumps(v, indent=2)` writes for the same values.
        let expected = "{\n  \"a\": [\n    1,\n    2.5,\n    {}\n  ],\n  \"b\": \"tr\\u00e5ce \\ud83d\\ude00\\u007f\\\"\\n\",\n  \"c\": [],\n  \"d\": 1e-07,\n  \"e\": 0.1\n}";
        assert_eq!(to_python_json(&v), expected);
    }
}
