//! blkparse default text output: `dev cpu seq time pid action rwbs sector + count [process]`,
//! e.g. `8,16 0 2 0.629226337 20246 Q W 935733770 + 8 [java]`. Only events of one stage (the
//! `action`, default `Q`) are requests, so a request is never counted twice; other events, and
//! events without a sector range (flushes, plugs), are not requests. A `D` in the RWBS field is a
//! discard (TRIM). Sectors are 512 bytes.

use super::{float, uint, ws_fields, Parsed, Request};

/// Parses one line; events of other stages give `None`.
pub fn parse<'a>(line: &'a str, action: &str) -> Parsed<'a> {
    let (f, n) = ws_fields::<10>(line);
    if n < 7 || !f[0].contains(',') {
        return Err("`dev cpu seq time pid action rwbs …` with dev as `major,minor`".into());
    }
    let time = float(Some(f[3]), "time")?;
    if f[5] != action {
        return Ok(None);
    }
    let rwbs = f[6];
    // `D` is a discard (TRIM), as blkparse(1) writes it in the RWBS field.
    let trim = rwbs.contains('D');
    let write = !trim && rwbs.contains('W');
    if (!write && !trim && !rwbs.contains('R')) || n == 7 || f[7].starts_with('[') {
        return Ok(None); // a flush or barrier, or a discard without a sector range
    }
    if n < 10 || f[8] != "+" {
        return Err("`sector + count` after the rwbs field".into());
    }
    let sector = uint(Some(f[7]), "sector")?;
    let count = uint(Some(f[9]), "count")?;
    Ok(Some(Request {
        time: Some(time),
        device: f[0],
        offset: sector
            .checked_mul(512)
            .ok_or("a sector that fits in 64 bits")?,
        len: count
            .checked_mul(512)
            .ok_or("a count that fits in 64 bits")?,
        write,
        trim,
    }))
}
