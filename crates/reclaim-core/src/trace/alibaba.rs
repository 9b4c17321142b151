//! Alibaba block traces (2020): `device_id,opcode,offset,length,timestamp`, offset and length in
//! bytes, timestamp in microseconds, opcode `R` or `W`. The device is the device id.

use super::{fields, uint, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let mut f = fields(line, b',');
    let dev = f.next().ok_or("a field `device_id`")?.trim();
    uint(Some(dev), "device_id")?;
    let write = match f.next().map(str::trim) {
        Some("W" | "w") => true,
        Some("R" | "r") => false,
        Some(_) => return Err("`opcode` R or W (unknown opcode)".to_string()),
        None => return Err("a field `opcode`".into()),
    };
    let offset = uint(f.next(), "offset")?;
    let len = uint(f.next(), "length")?;
    let ts = uint(f.next(), "timestamp")?;
    Ok(Some(Request {
        time: Some(ts as f64 * 1e-6),
        device: dev,
        offset,
        len,
        write,
        trim: false,
    }))
}
