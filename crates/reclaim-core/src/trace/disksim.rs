//! `DiskSim` ASCII traces: `arrival_time_ms device blkno bcount flags`, the time a decimal
//! number of milliseconds, blocks of 512 bytes, the flags hexadecimal with bit 0 set for a read
//! (`DiskSim` 4.0 `src/disksim_iotrace.c`, `iotrace_ascii_get_ioreq_event`: `"%lf %d %d %d %x"`;
//! `READ` is flag 0x1 in `disksim_global.h`). The device is the device number. (`MQSim`'s variant,
//! integer nanoseconds and a type 0/1, is [`super::mqsim`].)

use super::{float, uint, ws_fields, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let (f, n) = ws_fields::<5>(line);
    if n != 5 {
        return Err("5 fields `arrival_time_ms device blkno bcount flags`".to_string());
    }
    let ms = float(Some(f[0]), "arrival_time_ms")?;
    if ms < 0.0 {
        return Err("a time `arrival_time_ms` of 0 or more".to_string());
    }
    uint(Some(f[1]), "device")?;
    let block = uint(Some(f[2]), "blkno")?;
    let count = uint(Some(f[3]), "bcount")?;
    let flags = u32::from_str_radix(f[4].trim_start_matches("0x"), 16)
        .map_err(|_| "hexadecimal `flags`".to_string())?;
    Ok(Some(Request {
        time: Some(ms * 1e-3),
        device: f[1],
        offset: block
            .checked_mul(512)
            .ok_or("a blkno that fits in 64 bits")?,
        len: count
            .checked_mul(512)
            .ok_or("a bcount that fits in 64 bits")?,
        write: flags & 1 == 0,
        trim: false,
    }))
}
