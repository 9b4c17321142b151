//! `UMass` / SPC trace format: `ASU,LBA,Size,Opcode,Timestamp[,…]`, e.g. `0,20941264,8192,W,0.551706`.
//! LBA in 512-byte blocks, size in bytes, opcode `r`/`w` in either case, timestamp in seconds.
//! The device is the ASU.

use super::{fields, float, uint, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let mut f = fields(line, b',');
    let asu = f.next().ok_or("a field `ASU`")?.trim();
    uint(Some(asu), "ASU")?;
    let lba = uint(f.next(), "LBA")?;
    let len = uint(f.next(), "Size")?;
    let write = match f.next().map(str::trim) {
        Some("w" | "W") => true,
        Some("r" | "R") => false,
        Some(_) => return Err("`Opcode` r or w (unknown opcode)".to_string()),
        None => return Err("a field `Opcode`".into()),
    };
    let time = float(f.next(), "Timestamp")?;
    let offset = lba.checked_mul(512).ok_or("an LBA that fits in 64 bits")?;
    Ok(Some(Request {
        time: Some(time),
        device: asu,
        offset,
        len,
        write,
        trim: false,
    }))
}
