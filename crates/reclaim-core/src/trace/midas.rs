//! `MiDAS`-Simulation's trace lines: `time type lba io_size`, separated by spaces or tabs.
//!
//! As `sungkyun123/MiDAS-Simulation`, `ssdsimul.cpp` reads them (Oh et al., FAST '24):
//! `ssd_simulation` takes each line with `fgets`, and `req_processing` splits it at spaces and
//! tabs (`strtok(…, " \t")`) into the time (`atof`, added to a clock the simulator never reads:
//! taken here as seconds), the type, the LBA and the size (`atoi`). `submit_io` then acts on
//! `io_size / PGSIZE` pages from `lba` on, `PGSIZE` = 4096 (`ssd_config.cpp`):
//! - type 1 is a write, type 3 a discard (`trim` of each page), type 0 a read; type 2 does
//!   nothing there, and is counted here as a record that is not a request
//!   ([`super::ReadReport::non_requests`]);
//! - the LBA is in pages of 4 KiB; the size is in bytes, and the pages acted on are
//!   ⌊size / 4096⌋: a size that is not a multiple of 4 KiB loses its tail, as in the simulator
//!   (where reclaim's other readers would write the page it partly covers), and a size under
//!   4 KiB, which the simulator turns into no operation, is an error here (nothing is dropped
//!   silently);
//! - a line `LOAD_END` marks the end of the trace's load phase (`ssd_simulation` then counts the
//!   writes after it apart, beside the total it reports as WAF): it holds no request and is
//!   passed over; the load's writes are replayed like the rest.
//!
//! The simulator ignores anything after the fourth field; here a line has four, or five where
//! the fifth is an unsigned integer (the stream number the published `test-fio-small` carries,
//! zenodo record 10409599, which the simulator does not read), so that a line of another format
//! is not taken for one of these. No device: one volume.

use super::{float, uint, ws_fields, Request};

/// `MiDAS`'s page size [bytes] (`ssd_config.cpp`: `PGSIZE = 4096`).
pub const PAGE_BYTES: u64 = 4096;

/// What one line holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Line<'a> {
    /// A read, a write or a discard.
    Request(Request<'a>),
    /// Type 2, which the simulator passes over.
    NoOp,
    /// `LOAD_END`, the end of the load phase.
    LoadEnd,
}

/// Parses one line.
pub fn parse(line: &str) -> std::result::Result<Line<'_>, String> {
    if line.trim() == "LOAD_END" {
        return Ok(Line::LoadEnd);
    }
    let (f, n) = ws_fields::<5>(line);
    if n != 4 && n != 5 {
        return Err(
            "4 fields `time type lba io_size` (MiDAS), or 5 with a stream number".to_string(),
        );
    }
    if n == 5 {
        uint(Some(f[4]), "stream")?;
    }
    let time = float(Some(f[0]), "time")?;
    let kind = uint(Some(f[1]), "type")?;
    let lba = uint(Some(f[2]), "lba")?;
    let size = uint(Some(f[3]), "io_size")?;
    let (write, trim) = match kind {
        0 => (false, false),
        1 => (true, false),
        2 => return Ok(Line::NoOp),
        3 => (false, true),
        _ => {
            return Err(
                "`type` 0 (read), 1 (write), 2 (none) or 3 (discard) (unknown opcode)".to_string(),
            )
        }
    };
    let pages = size / PAGE_BYTES;
    if pages == 0 {
        return Err(format!(
            "an `io_size` of at least {PAGE_BYTES} bytes (MiDAS acts on ⌊io_size / 4096⌋ pages)"
        ));
    }
    Ok(Line::Request(Request {
        time: Some(time),
        device: "",
        offset: lba
            .checked_mul(PAGE_BYTES)
            .ok_or("an lba that fits in 64 bits")?,
        len: pages * PAGE_BYTES,
        write,
        trim,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(line: &str) -> Request<'_> {
        match parse(line) {
            Ok(Line::Request(r)) => r,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn hand_written_lines_give_their_pages() {
        // A write of 8 KiB at 4 KiB page 100: bytes 409,600 to 417,792, pages 100 and 101.
        let r = request("0.000125 1 100 8192");
        assert_eq!(
            (r.offset, r.len, r.write, r.trim),
            (409_600, 8192, true, false)
        );
        assert!((r.time.unwrap() - 0.000_125).abs() < 1e-15);
        // Tabs separate as spaces do; a read.
        let r = request("3.5\t0\t7\t4096");
        assert_eq!(
            (r.offset, r.len, r.write, r.trim),
            (28_672, 4096, false, false)
        );
        // A discard of 3 pages from page 12; 12,288 + 100 bytes: the tail is dropped, as MiDAS does.
        let r = request("4 3 12 12388");
        assert_eq!(
            (r.offset, r.len, r.write, r.trim),
            (49_152, 12_288, false, true)
        );
        assert_eq!(parse("5 2 0 4096"), Ok(Line::NoOp));
        assert_eq!(parse("LOAD_END"), Ok(Line::LoadEnd));
    }

    #[test]
    fn bad_lines_say_what_was_expected() {
        assert!(parse("1 1 100").unwrap_err().contains("4 fields"));
        // The published trace's fifth field, a stream number, is read past; a sixth is refused.
        assert_eq!(parse("0.5 1 7 8192 0"), parse("0.5 1 7 8192"));
        assert!(parse("0.5 1 7 8192 x").unwrap_err().contains("stream"));
        assert!(parse("0.5 1 7 8192 0 0").unwrap_err().contains("4 fields"));
        assert!(parse("1 5 100 4096")
            .unwrap_err()
            .contains("unknown opcode"));
        assert!(parse("1 1 100 512").unwrap_err().contains("at least 4096"));
        assert!(parse("x 1 100 4096").unwrap_err().contains("`time`"));
        assert!(parse("1 1 -3 4096").unwrap_err().contains("negative"));
    }
}
