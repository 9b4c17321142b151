//! Meta's Tectonic block traces as SSD-iq reads them: nine fields separated by white space,
//! `block_id io_offset io_size op_time op_name user_namespace user_name rs_shard_id op_count`.
//!
//! Haas, Lee, Bonnet & Leis, SSD-iq (PVLDB 18(11), 2025): `gabriel-haas/ssdiq` (and
//! `LeeBohyun/ssdiq_plus`), `traces/src/ParseTectonicTrace.hpp`, `parseTectonicTraceLine` and
//! `parseTectonicTraceFile`:
//! - the fields are read in that order by `std::istringstream >>`: the first three and the
//!   last four as unsigned integers, `op_time` as a number (taken here as seconds); what follows
//!   the ninth is not read (the published traces add a host name);
//! - a request's first byte is `block_id × 4096 + io_offset` (`BLOCK_SIZE = 4 * 1024`) and its
//!   length `io_size` bytes (`calculateMinimumSSDCapacity`);
//! - `op_name` 3, 4 and 6 are writes (`PUT_OPS`); SSD-iq keeps only those. Here the others are
//!   counted as records that are not requests ([`super::ReadReport::non_requests`]), since the
//!   parser names no read among them.
//!
//! Where SSD-iq drops a line it cannot read, reclaim stops with the file, the line and what was
//! expected (or, with `--skip-bad-lines`, counts it); a header of column names before the first
//! record is skipped as for every format. No device: one volume.

use super::{float, uint, ws_fields, Request};

/// Bytes per `block_id` step (SSD-iq's `BLOCK_SIZE`).
pub const BLOCK_BYTES: u64 = 4096;

/// `op_name` values that are writes (SSD-iq's `PUT_OPS`).
pub const PUT_OPS: [u64; 3] = [3, 4, 6];

/// What one line holds: a write, or `None` for another operation.
pub fn parse(line: &str) -> std::result::Result<Option<Request<'_>>, String> {
    let (f, n) = ws_fields::<9>(line);
    if n < 9 {
        return Err("9 fields `block_id io_offset io_size op_time op_name user_namespace user_name rs_shard_id op_count` (Tectonic)".to_string());
    }
    let block = uint(Some(f[0]), "block_id")?;
    let offset = uint(Some(f[1]), "io_offset")?;
    let size = uint(Some(f[2]), "io_size")?;
    let time = float(Some(f[3]), "op_time")?;
    let op = uint(Some(f[4]), "op_name")?;
    for (field, name) in
        f[5..]
            .iter()
            .zip(["user_namespace", "user_name", "rs_shard_id", "op_count"])
    {
        uint(Some(field), name)?;
    }
    if !PUT_OPS.contains(&op) {
        return Ok(None);
    }
    let start = block
        .checked_mul(BLOCK_BYTES)
        .and_then(|b| b.checked_add(offset))
        .ok_or("a `block_id × 4096 + io_offset` that fits in 64 bits")?;
    Ok(Some(Request {
        time: Some(time),
        device: "",
        offset: start,
        len: size,
        write: true,
        trim: false,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_written_lines_give_their_pages() {
        // A PUT (op 3) of 8 KiB at block 10, offset 4096: first byte 10 × 4096 + 4096 = 45,056.
        let r = parse("10 4096 8192 1577808000.25 3 1 2 3 1")
            .unwrap()
            .unwrap();
        assert_eq!((r.offset, r.len, r.write), (45_056, 8192, true));
        assert!((r.time.unwrap() - 1_577_808_000.25).abs() < 1e-6);
        // Op 6 is a write too; a tenth field (a host name) is not read.
        let r = parse("0 0 4096 2 6 1 2 3 1 host42").unwrap().unwrap();
        assert_eq!((r.offset, r.len), (0, 4096));
        // Op 1 is not among SSD-iq's writes.
        assert_eq!(parse("0 0 4096 2 1 1 2 3 1"), Ok(None));
    }

    #[test]
    fn bad_lines_say_what_was_expected() {
        assert!(parse("0 0 4096 2 3 1 2 3")
            .unwrap_err()
            .contains("9 fields"));
        assert!(parse("0 0 4096 2 3 1 alice 3 1")
            .unwrap_err()
            .contains("`user_name`"));
        assert!(parse("0 0 4096 now 3 1 2 3 1")
            .unwrap_err()
            .contains("`op_time`"));
    }
}
