//! No number in a config may be NaN or infinite. Two halves keep it so whatever a
//! section's own checks do:
//!
//! - [`non_finite_json`]: Python's `json` writes `NaN`, `Infinity` and `-Infinity`, which
//!   JSON has no words for, so serde_json would only say `expected value`. A document
//!   holding them is read through TOML's value type, which has NaN and infinities, so that
//!   validation sees the value and says what the key expects.
//! - [`first_non_finite`]: after the sections' checks, any float still not finite is
//!   refused, naming its key, so a key added without a finiteness check cannot let NaN
//!   through.

use serde::ser::{self, Serialize};

use super::ranges::bad;
use crate::error::Result;

/// What stands for a non-finite number while the document goes through JSON: a string no
/// config holds (it starts with a NUL).
const MARK: &str = "\u{0}xlssd-non-finite:";

/// The document parsed as `T`, if `text` holds `NaN`, `Infinity` or `-Infinity` outside
/// strings; `None` if it holds none or is not JSON even with them replaced, in which case
/// the caller reports serde_json's own error.
pub(crate) fn non_finite_json<T: serde::de::DeserializeOwned>(text: &str) -> Option<Result<T>> {
    let marked = mark_non_finite(text)?;
    let json: serde_json::Value = serde_json::from_str(&marked).ok()?;
    let value = to_toml(json)?;
    Some(serde_path_to_error::deserialize(value).map_err(|e| super::read_error(e.path().to_string(), e.inner().message())))
}

/// `text` with each bare `NaN`, `Infinity` and `-Infinity` replaced by a marked string, or
/// `None` if there is none.
fn mark_non_finite(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 32);
    let (mut in_string, mut escaped, mut found) = (false, false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if let Some(word) = ["NaN", "Infinity", "-Infinity"].into_iter().find(|w| rest.starts_with(w)) {
            out.push('"');
            out.push_str(&MARK.replace('\0', "\\u0000"));
            out.push_str(word);
            out.push('"');
            rest = &rest[word.len()..];
            found = true;
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    found.then_some(out)
}

/// The JSON value as a TOML value, marked strings turned back into floats. `None` for what
/// TOML cannot hold (a null in a list, an integer beyond i64).
fn to_toml(v: serde_json::Value) -> Option<toml::Value> {
    use serde_json::Value as J;
    Some(match v {
        J::Null => return None,
        J::Bool(b) => toml::Value::Boolean(b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None if n.is_u64() => return None,
            None => toml::Value::Float(n.as_f64()?),
        },
        J::String(s) => match s.strip_prefix(MARK) {
            Some("NaN") => toml::Value::Float(f64::NAN),
            Some("Infinity") => toml::Value::Float(f64::INFINITY),
            Some("-Infinity") => toml::Value::Float(f64::NEG_INFINITY),
            _ => toml::Value::String(s),
        },
        J::Array(a) => toml::Value::Array(a.into_iter().map(to_toml).collect::<Option<_>>()?),
        // A null in a table is a key left at its default.
        J::Object(o) => toml::Value::Table(
            o.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| Some((k, to_toml(v)?))).collect::<Option<_>>()?,
        ),
    })
}

/// Refuses the first float in `value` that is NaN or infinite, naming its key.
pub(crate) fn check_finite(value: &impl Serialize) -> Result<()> {
    match first_non_finite(value) {
        Some((key, v)) => Err(bad(&key, v, "a finite number")),
        None => Ok(()),
    }
}

/// The dotted key (lists indexed as `key[i]`) and value of the first float in `value`
/// that is not finite.
pub(crate) fn first_non_finite(value: &impl Serialize) -> Option<(String, f64)> {
    let mut walker = Walker { path: Vec::new(), found: None };
    let _ = value.serialize(&mut walker);
    walker.found
}

enum Segment {
    Key(String),
    Index(usize),
}

struct Walker {
    path: Vec<Segment>,
    found: Option<(String, f64)>,
}

impl Walker {
    fn key(&self) -> String {
        let mut s = String::new();
        for seg in &self.path {
            match seg {
                Segment::Key(k) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(k);
                }
                Segment::Index(i) => s.push_str(&format!("[{i}]")),
            }
        }
        s
    }

    fn float(&mut self, v: f64) -> Result<(), Stop> {
        if v.is_finite() {
            return Ok(());
        }
        self.found = Some((self.key(), v));
        Err(Stop)
    }

    fn nested<T: Serialize + ?Sized>(&mut self, seg: Segment, value: &T) -> Result<(), Stop> {
        self.path.push(seg);
        let r = value.serialize(&mut *self);
        self.path.pop();
        r
    }
}

/// Ends the walk at the first non-finite float.
#[derive(Debug)]
struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stop")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Stop
    }
}

/// A sequence being walked: the last segment of the path is the index of the element
/// being walked, counted up after each.
struct Seq<'a>(&'a mut Walker);

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let r = value.serialize(&mut *self.0);
        if let Some(Segment::Index(i)) = self.0.path.last_mut() {
            *i += 1;
        }
        r
    }
}

impl Drop for Seq<'_> {
    fn drop(&mut self) {
        self.0.path.pop();
    }
}

macro_rules! ignore {
    ($($name:ident($t:ty)),*) => {
        $(fn $name(self, _: $t) -> Result<(), Stop> { Ok(()) })*
    };
}

impl<'a> ser::Serializer for &'a mut Walker {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Map<'a>;
    type SerializeStruct = &'a mut Walker;
    type SerializeStructVariant = &'a mut Walker;

    ignore!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str)
    );

    fn serialize_f32(self, v: f32) -> Result<(), Stop> {
        self.float(v as f64)
    }
    fn serialize_f64(self, v: f64) -> Result<(), Stop> {
        self.float(v)
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.nested(Segment::Key(variant.to_string()), value)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Stop> {
        self.path.push(Segment::Index(0));
        Ok(Seq(self))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>, Stop> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'a>, Stop> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, len: usize) -> Result<Seq<'a>, Stop> {
        self.serialize_seq(Some(len))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map<'a>, Stop> {
        Ok(Map { walker: self, key: String::new() })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
}

macro_rules! seq_like {
    ($($tr:ident :: $method:ident),*) => {
        $(impl ser::$tr for Seq<'_> {
            type Ok = ();
            type Error = Stop;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
                self.element(value)
            }
            fn end(self) -> Result<(), Stop> {
                Ok(())
            }
        })*
    };
}

seq_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

macro_rules! struct_like {
    ($($tr:ident),*) => {
        $(impl ser::$tr for &mut Walker {
            type Ok = ();
            type Error = Stop;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Stop> {
                self.nested(Segment::Key(key.to_string()), value)
            }
            fn end(self) -> Result<(), Stop> {
                Ok(())
            }
        })*
    };
}

struct_like!(SerializeStruct, SerializeStructVariant);

/// A map's keys are shown as JSON would write them, without quotes.
struct Map<'a> {
    walker: &'a mut Walker,
    key: String,
}

impl ser::SerializeMap for Map<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        let json = serde_json::to_string(key).unwrap_or_default();
        self.key = json.trim_matches('"').to_string();
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let key = std::mem::take(&mut self.key);
        self.walker.nested(Segment::Key(key), value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq, Default)]
    #[serde(default, deny_unknown_fields)]
    struct Doc {
        a: f64,
        list: Vec<f64>,
        inner: Inner,
        name: String,
    }

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq, Default)]
    #[serde(default)]
    struct Inner {
        x: Option<f64>,
        n: u32,
    }

    #[test]
    fn python_non_finite_words_are_read_as_floats() {
        let doc: Doc =
            non_finite_json(r#"{"a": NaN, "list": [1, -Infinity], "inner": {"x": Infinity, "n": 2}, "name": "NaN \" Infinity"}"#)
                .unwrap()
                .unwrap();
        assert!(doc.a.is_nan());
        assert_eq!(doc.list, vec![1.0, f64::NEG_INFINITY]);
        assert_eq!((doc.inner.x, doc.inner.n), (Some(f64::INFINITY), 2));
        assert_eq!(doc.name, "NaN \" Infinity");
        assert!(non_finite_json::<Doc>(r#"{"a": 1.5, "name": "NaN"}"#).is_none());
        assert!(non_finite_json::<Doc>(r#"{"a": NaN,"#).is_none());
        match non_finite_json::<Doc>(r#"{"inner": {"n": NaN}, "aaa": 1}"#) {
            Some(Err(Error::Config { key, message })) => {
                assert_eq!(key, "aaa");
                assert!(!message.contains('\n'), "{message:?}");
            }
            other => panic!("{other:?}"),
        }
        match non_finite_json::<Doc>(r#"{"inner": {"n": NaN}}"#) {
            Some(Err(Error::Config { key, .. })) => assert_eq!(key, "inner.n"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_first_non_finite_float_is_named_by_its_key() {
        assert_eq!(first_non_finite(&Doc::default()), None);
        let doc = Doc { list: vec![1.0, 2.0, f64::NAN], ..Default::default() };
        let (key, v) = first_non_finite(&doc).unwrap();
        assert_eq!(key, "list[2]");
        assert!(v.is_nan());
        let doc = Doc { inner: Inner { x: Some(f64::INFINITY), n: 0 }, ..Default::default() };
        assert_eq!(first_non_finite(&doc), Some(("inner.x".to_string(), f64::INFINITY)));
        let e = check_finite(&doc).unwrap_err().to_string();
        assert_eq!(e, "config key `inner.x`: value inf is not a finite number: expected a finite number");
    }
}
