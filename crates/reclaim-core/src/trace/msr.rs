//! MSR Cambridge CSV (Narayanan et al., "Write off-loading"):
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, e.g.
//! `128166372003061629,hm,0,Write,7014912,4096,26`. Timestamp in Windows filetime (100 ns
//! ticks), offset and size in bytes; the device is `Hostname_DiskNumber` (`hm_0`).

use super::{fields, uint, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let mut f = fields(line, b',');
    let ts = uint(f.next(), "Timestamp")?;
    let host = f.next().ok_or("a field `Hostname`")?;
    let disk = f.next().ok_or("a field `DiskNumber`")?;
    let kind = f.next().ok_or("a field `Type`")?.trim();
    let offset = uint(f.next(), "Offset")?;
    let len = uint(f.next(), "Size")?;
    let write = match kind {
        "Write" | "write" => true,
        "Read" | "read" => false,
        _ => return Err("`Type` Read or Write (unknown opcode)".to_string()),
    };
    // The device name is host and disk; both are slices of the line, joined by position.
    let dev_end = disk.as_ptr() as usize - line.as_ptr() as usize + disk.len();
    let dev_start = host.as_ptr() as usize - line.as_ptr() as usize;
    Ok(Some(Request {
        time: Some(ts as f64 * 1e-7),
        device: &line[dev_start..dev_end],
        offset,
        len,
        write,
        trim: false,
    }))
}
