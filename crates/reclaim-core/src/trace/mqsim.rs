//! `MQSim` ASCII traces: `arrival_time_ns device lba_sectors size_sectors type`, type 0 = write,
//! 1 = read; sectors of 512 bytes. The device is the device number. (`DiskSim`'s original, float
//! milliseconds and hexadecimal flags, is [`super::disksim`].)

use super::{uint, ws_fields, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let (f, n) = ws_fields::<5>(line);
    if n != 5 {
        return Err("5 fields `arrival_time_ns device lba size type`".to_string());
    }
    let t = uint(Some(f[0]), "arrival_time_ns")?;
    uint(Some(f[1]), "device")?;
    let lba = uint(Some(f[2]), "lba")?;
    let size = uint(Some(f[3]), "size")?;
    let write = match f[4] {
        "0" => true,
        "1" => false,
        _ => return Err("`type` 0 (write) or 1 (read) (unknown opcode)".to_string()),
    };
    Ok(Some(Request {
        time: Some(t as f64 * 1e-9),
        device: f[1],
        offset: lba.checked_mul(512).ok_or("an lba that fits in 64 bits")?,
        len: size.checked_mul(512).ok_or("a size that fits in 64 bits")?,
        write,
        trim: false,
    }))
}
