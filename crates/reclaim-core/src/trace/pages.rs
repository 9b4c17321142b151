//! A plain list of logical page ids, one per line, each a one-page write; `#` starts a comment.
//! Offsets are in pages: the converter is told the page size is 1 "byte" per page id.

use super::{uint, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let t = line.trim();
    if t.starts_with('#') {
        return Ok(None);
    }
    let page = uint(Some(t), "page")?;
    Ok(Some(Request {
        time: None,
        device: "",
        offset: page,
        len: 1,
        write: true,
        trim: false,
    }))
}
