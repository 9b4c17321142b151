//! libCacheSim's binary block traces, records of fixed size, little-endian (libCacheSim
//! `traceReader/customizedReader/vscsi.h` and `oracle/oracleGeneralBin.h`):
//!
//! - `vscsi`: `VMware`'s `vSCSI` traces. Version 1 records (32 bytes) are `sn u32, len u32, nSG u32,
//!   cmd u16, ver u16, lbn u64, ts u64`; version 2 (40 bytes) `cmd u16, ver u16, sn u32, len u32,
//!   nSG u32, lbn u64, ts u64, rt u64`. The version is `ver >> 8` of the first records (libCacheSim
//!   tests the first two). `len` is in bytes, `lbn` in 512-byte sectors, `ts` in microseconds;
//!   `cmd` is the SCSI operation code: READ(6/10/12/16) 0x08/0x28/0xA8/0x88, WRITE 0x0A/0x2A/
//!   0xAA/0x8A. Other commands carry no data and are counted as non-requests.
//! - `oracle-general`: `real_time u32, obj_id u64, obj_size u32, next_access_vtime i64` (24
//!   bytes). The format has no operation: every record is read as a write. For a block trace
//!   (libCacheSim's `cloudPhysicsIO.oracleGeneral.bin` is the vSCSI trace above) `obj_id` is the
//!   sector (512 bytes) and `obj_size` the length in bytes; `real_time` is in seconds.

/// What one record holds: a request, or a command that is not one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Record {
    /// A read or write: time [s], first byte, length [bytes], write.
    Request {
        /// Time in seconds.
        time: f64,
        /// First byte.
        offset: u64,
        /// Length in bytes.
        len: u64,
        /// Write (true) or read.
        write: bool,
    },
    /// A command with no data (vSCSI).
    Other,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The vSCSI version of a trace from its first bytes (`head`, up to two records): 1 or 2, as
/// libCacheSim's `test_vscsi_version` decides (version 2 first), testing the records `head` holds.
pub fn vscsi_version(head: &[u8]) -> Option<u8> {
    let test = |size: usize, at: usize, version: u16| {
        let records = (head.len() / size).min(2);
        records > 0 && (0..records).all(|i| u16_at(head, i * size + at) >> 8 == version)
    };
    if test(40, 2, 2) {
        Some(2)
    } else if test(32, 14, 1) {
        Some(1)
    } else {
        None
    }
}

/// Bytes per record of a vSCSI version.
pub fn vscsi_record_bytes(version: u8) -> usize {
    if version == 2 {
        40
    } else {
        32
    }
}

/// A vSCSI record of `version`; `Err` names what is wrong.
pub fn vscsi(b: &[u8], version: u8) -> std::result::Result<Record, String> {
    let (cmd, len, lbn, ts) = if version == 2 {
        (u16_at(b, 0), u32_at(b, 8), u64_at(b, 16), u64_at(b, 24))
    } else {
        (u16_at(b, 12), u32_at(b, 4), u64_at(b, 16), u64_at(b, 24))
    };
    let write = match cmd & 0xff {
        0x0a | 0x2a | 0xaa | 0x8a => true,
        0x08 | 0x28 | 0xa8 | 0x88 => false,
        _ => return Ok(Record::Other),
    };
    Ok(Record::Request {
        time: ts as f64 * 1e-6,
        offset: lbn.checked_mul(512).ok_or("an lbn that fits in 64 bits")?,
        len: u64::from(len),
        write,
    })
}

/// Bytes per `oracle-general` record.
pub const ORACLE_GENERAL_BYTES: usize = 24;

/// An `oracle-general` record, read as a write.
pub fn oracle_general(b: &[u8]) -> std::result::Result<Record, String> {
    let time = u32_at(b, 0);
    let id = u64_at(b, 4);
    let size = u32_at(b, 12);
    Ok(Record::Request {
        time: f64::from(time),
        offset: id
            .checked_mul(512)
            .ok_or("an obj_id (sector) that fits in 64 bits")?,
        len: u64::from(size),
        write: true,
    })
}
