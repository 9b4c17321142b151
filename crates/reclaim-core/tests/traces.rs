//! Trace readers on the real samples in `../shared/data/traces` (counts from its SOURCES.md)
//! and on fixtures for the formats without a sample, malformed lines included.

use std::io::Write;
use std::path::PathBuf;

use reclaim_core::trace::convert::{convert, read_binary, write_binary, ConvertOptions};
use reclaim_core::trace::{Format, ReadOptions};
use reclaim_core::Error;

/// A sample of `../shared/data/traces`, or `None` (the test skips, saying so) when `../shared`
/// is not beside the checkout. CI has it (`RECLAIM_REQUIRE_SHARED=1`): there a missing sample
/// is a failure.
fn sample(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/traces")
        .join(name);
    if p.exists() {
        return Some(p);
    }
    assert!(
        std::env::var("RECLAIM_REQUIRE_SHARED").as_deref() != Ok("1"),
        "../shared/data/traces/{name} is missing and RECLAIM_REQUIRE_SHARED=1"
    );
    eprintln!("../shared/data/traces not found; skipping {name}");
    None
}

fn fixture(name: &str, text: &str) -> PathBuf {
    // Under the build directory's scratch space, not the system temporary folder.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("trace-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::File::create(&p)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    p
}

#[test]
fn samples_convert_with_the_published_counts() {
    // SOURCES.md: requests / writes.
    for (name, format, requests, writes) in [
        (
            "cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines",
            Format::Fiu,
            9_998,
            None,
        ),
        (
            "Installing_log181.txt",
            Format::Biotracer,
            17_952,
            Some(17_640),
        ),
        ("Booting_log176.txt", Format::Biotracer, 18_417, Some(6_090)),
        ("tpcc-small.trace", Format::Mqsim, 6_999, Some(2_618)),
    ] {
        let Some(path) = sample(name) else {
            continue;
        };
        let t = convert(&path, format, ConvertOptions::default()).unwrap();
        assert_eq!(t.meta.requests, requests, "{name}");
        if let Some(w) = writes {
            assert_eq!(t.meta.writes, w, "{name}");
        }
        assert_eq!(t.meta.reads + t.meta.writes, t.meta.requests);
        assert_eq!(
            t.request_pages.iter().map(|&n| u64::from(n)).sum::<u64>(),
            t.meta.pages_written
        );
    }
}

#[test]
fn fiu_archive_framing_is_reported_not_eaten() {
    let Some(path) = sample("cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines") else {
        return;
    };
    let t = convert(&path, Format::Fiu, ConvertOptions::default()).unwrap();
    let r = &t.meta.report;
    // Two header lines and the NUL-padded part of the third come before the first record;
    // the last line is NUL padding.
    assert_eq!(r.leading_garbage_lines, 3);
    assert!(r.leading_garbage_bytes > 1_000, "{r:?}");
    assert!(r.trailing_padding_bytes > 5_000, "{r:?}");
    assert!(r.skipped.is_empty());
    // SOURCES.md: about 1,102 writes.
    assert!(
        (1_090..=1_110).contains(&t.meta.writes),
        "{}",
        t.meta.writes
    );
}

#[test]
fn every_other_format_reads_its_fixture() {
    let cases: [(Format, &str, u64, u64, u64); 4] = [
        // (format, text, requests, writes, pages written at 4 KiB)
        (Format::Msr, "128166372003061629,hm,0,Write,7014912,4096,26\n128166372003061630,hm,0,Read,0,512,3\n128166372003061631,hm,0,Write,4095,2,5\n", 3, 2, 4), // an unaligned 4 KiB write and a 2-byte write straddling a page boundary each touch two pages
        (Format::Spc, "0,20941264,8192,W,0.551706\n1,20941280,4096,r,0.6\n0,8,4096,w,0.7,extra\n", 3, 2, 3),
        (Format::Alibaba, "1,W,19496058880,77824,1577808000000426\n1,R,0,4096,1577808000000427\n", 2, 1, 19),
        (Format::Blkparse, "8,16 0 2 0.629226337 20246 Q W 935733770 + 8 [java]\n8,16 0 3 0.629226400 20246 C W 935733770 + 8 [0]\n8,16 0 4 0.7 1 Q R 0 + 8 [cat]\n8,16 0 5 0.8 1 Q FWS [kworker]\n", 2, 1, 2),
    ];
    for (format, text, requests, writes, pages) in cases {
        let path = fixture(&format!("{format}.txt"), text);
        let t = convert(&path, format, ConvertOptions::default()).unwrap();
        assert_eq!(
            (t.meta.requests, t.meta.writes, t.meta.pages_written),
            (requests, writes, pages),
            "{format}"
        );
    }
    let path = fixture("pages.txt", "# a comment\n5\n7\n5\n");
    let t = convert(&path, Format::Pages, ConvertOptions::default()).unwrap();
    assert_eq!(t.pages, vec![5, 7, 5]);
    assert_eq!((t.meta.unique_pages, t.meta.address_pages), (2, 8));
}

#[test]
fn malformed_lines_name_file_line_and_expectation() {
    for (format, text, line, expect) in [
        (Format::Msr, "128166372003061629,hm,0,Write,7014912,4096,26\n128166372003061630,hm,0,Erase,0,512,3\n", 2, "unknown opcode"),
        (Format::Spc, "0,20941264,8192,W,0.551706\n0,-8,4096,W,0.6\n", 2, "negative address"),
        (Format::Mqsim, "1 0 8 16 0\n2 0 8 0 0\n", 2, "zero-length request"),
        (Format::Fiu, "1 2 p 3 8 W 6 0 x\n1 2 p 3 8 W 6\n", 2, "9 fields"),
        (Format::Biotracer, "0\t\t8\t\t4096\t\t4\t\t1.0\t\t1.0\t\t1.0\t\t1.0\n8\t\tx\t\t4096\t\t4\t\t1.0\t\t1.0\t\t1.0\t\t1.0\n", 2, "`nsectors`"),
        (Format::Alibaba, "1,W,0,4096,1\n1,W,0,4096\n", 2, "`timestamp`"),
        // A sector whose byte address overflows 64 bits is named, not wrapped.
        (Format::Biotracer, "0\t8\t4096\t1\t1.0\t1.0\t1.0\t1.0\n36028797018963968\t8\t4096\t1\t1.0\t1.0\t1.0\t1.0\n", 2, "a sector that fits in 64 bits"),
        (Format::Blkparse, "8,16 0 1 0.5 7 Q W 8 + 8 [a]\n8,16 0 2 0.6 7 Q W 8 8 [a]\n", 2, "`sector + count`"),
        (Format::Pages, "1\n2\nthree\n", 3, "`page`"),
    ] {
        let path = fixture(&format!("bad-{format}.txt"), text);
        let e = convert(&path, format, ConvertOptions::default()).unwrap_err();
        match &e {
            Error::Trace { path: p, line: l, .. } => {
                assert!(p.ends_with(&format!("bad-{format}.txt")));
                assert_eq!(*l, line, "{e}");
            }
            other => panic!("{format}: {other}"),
        }
        assert!(e.to_string().contains(expect), "{format}: {e}");
        // With skip_bad_lines the line is counted under its reason.
        let opts = ConvertOptions { read: ReadOptions { skip_bad_lines: true, ..ReadOptions::default() }, ..ConvertOptions::default() };
        let t = convert(&path, format, opts).unwrap();
        assert_eq!(t.meta.report.skipped.values().sum::<u64>(), 1, "{format}");
    }
}

#[test]
fn binary_round_trip_and_renaming() {
    let path = fixture("rename.txt", "100\n7\n100\n9\n");
    let opts = ConvertOptions {
        rename: true,
        ..ConvertOptions::default()
    };
    let t = convert(&path, Format::Pages, opts).unwrap();
    // Stockmeyer §2.1: dense ids in first-write order.
    assert_eq!(t.pages, vec![0, 1, 0, 2]);
    assert_eq!(t.meta.address_pages, 3);
    let out = path.with_extension("rtr");
    write_binary(&t, &out).unwrap();
    let back = read_binary(&out).unwrap();
    assert_eq!(back.pages, t.pages);
    assert_eq!(back.meta, t.meta);
}

#[test]
fn device_selection_and_gzip() {
    let text = "1,W,0,4096,1\n2,W,4096,4096,2\n1,W,8192,4096,3\n";
    let path = fixture("ali.csv", text);
    let opts = ConvertOptions {
        read: ReadOptions {
            device: Some("1".into()),
            ..ReadOptions::default()
        },
        ..ConvertOptions::default()
    };
    let t = convert(&path, Format::Alibaba, opts).unwrap();
    assert_eq!((t.meta.writes, t.meta.report.other_devices), (2, 1));
    let gz = path.with_extension("csv.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap();
    let t = convert(&gz, Format::Alibaba, ConvertOptions::default()).unwrap();
    assert_eq!(t.meta.writes, 3);
}

/// A zstd trace reads as its text, two concatenated frames as one stream (RFC 8878 §3.1: a
/// stream of frames), and a damaged frame is an error that names the file.
#[test]
fn zstd_input() {
    let first = "1,W,0,4096,1\n2,W,4096,4096,2\n";
    let second = "1,W,8192,4096,3\n";
    let path = fixture("ali.csv.zst", "");
    let mut bytes = zstd::encode_all(first.as_bytes(), 3).unwrap();
    bytes.extend(zstd::encode_all(second.as_bytes(), 3).unwrap());
    std::fs::write(&path, &bytes).unwrap();
    let t = convert(&path, Format::Alibaba, ConvertOptions::default()).unwrap();
    assert_eq!((t.meta.writes, t.meta.report.lines), (3, 3));
    let cut = bytes.len() - 4;
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let err = convert(&path, Format::Alibaba, ConvertOptions::default()).unwrap_err();
    assert!(err.to_string().contains("ali.csv.zst"), "{err}");
}

/// A CSV whose first line names its columns reads as its records, the header counted; a header
/// anywhere else, or a first line that is not all words, stays an error; a file of no record
/// says so in words, with what was skipped.
#[test]
fn header_lines_and_no_records() {
    let text = "device_id,opcode,offset,length,timestamp\n1,W,0,4096,1\n1,W,4096,4096,2\n";
    let path = fixture("ali-header.csv", text);
    let t = convert(&path, Format::Alibaba, ConvertOptions::default()).unwrap();
    assert_eq!((t.meta.writes, t.meta.report.header_lines), (2, 1));
    let msr = fixture("msr-header.csv", "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n128166372003061629,hm,1,Write,0,4096,100\n");
    let t = convert(&msr, Format::Msr, ConvertOptions::default()).unwrap();
    assert_eq!((t.meta.writes, t.meta.report.header_lines), (1, 1));
    let late = fixture(
        "ali-late.csv",
        "1,W,0,4096,1\ndevice_id,opcode,offset,length,timestamp\n",
    );
    let err = convert(&late, Format::Alibaba, ConvertOptions::default()).unwrap_err();
    assert!(err.to_string().contains("line 2"), "{err}");
    let mixed = fixture(
        "ali-mixed.csv",
        "1,opcode,offset,length,timestamp\n1,W,0,4096,1\n",
    );
    assert!(convert(&mixed, Format::Alibaba, ConvertOptions::default()).is_err());
    // The MSR lines read as Alibaba, skipping bad lines: nothing is a record.
    let opts = ConvertOptions {
        read: ReadOptions {
            skip_bad_lines: true,
            ..ReadOptions::default()
        },
        ..ConvertOptions::default()
    };
    let err = convert(&msr, Format::Alibaba, opts)
        .unwrap_err()
        .to_string();
    assert!(err.ends_with(": no alibaba record in 2 lines (skipped as bad: 1 lines where `opcode` R or W (unknown opcode) was expected); is `alibaba` the trace's format?"), "{err}");
}

/// `DiskSim`'s ASCII: float milliseconds, 512-byte blocks, hexadecimal flags whose bit 0 marks a
/// read (`DiskSim` 4.0 `iotrace_ascii_get_ioreq_event`); other flag bits leave a write a write.
#[test]
fn disksim_ascii() {
    let text = "13.191135\t30\t0\t5\t1\n25.911729\t18\t28601\t12\t0\n30.5 18 8 8 10\n";
    let path = fixture("ascii.trace", text);
    let opts = ConvertOptions {
        page_size: 4096,
        ..ConvertOptions::default()
    };
    let t = convert(&path, Format::Disksim, opts).unwrap();
    // Two writes: blocks 28601..28613 (bytes 14,643,712..14,649,856: pages 3575..3576) and 8..16
    // (page 1); one read.
    assert_eq!((t.meta.writes, t.meta.reads), (2, 1));
    assert_eq!(t.pages, vec![3575, 3576, 1]);
    let err = convert(
        &fixture("ms.trace", "1.0 0 8 8 1.5\n"),
        Format::Disksim,
        ConvertOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("hexadecimal `flags`"), "{err}");
}

/// The column-mapped CSV reads any layout its spec names: columns, separator, units, tokens and
/// header; its canonical spec names every key and parses back to itself; a bad spec names the
/// key, the value and what is allowed.
#[test]
fn column_mapped_csv() {
    // A libCacheSim-like block CSV: time in µs, a header, op as read/write words, sizes in bytes.
    let text = "ts,lba,len,op,disk\n10,0,4096,write,3\n20,8,1024,READ,3\n30,16,512,Write,4\n";
    let path = fixture("mapped.csv", text);
    let spec = "csv:time=0,offset=1,size=2,op=3,volume=4,offset_unit=sector,time_unit=us,write=write,read=read";
    let format: Format = spec.parse().unwrap();
    let t = convert(&path, format, ConvertOptions::default()).unwrap();
    // Writes of 4096 bytes at 0 (page 0 of volume 3) and 512 bytes at sector 16 = byte 8192
    // (page 2 of volume 4, whose pages come after volume 3's one page: id 1 + 2).
    assert_eq!(t.pages, vec![0, 3]);
    assert_eq!(t.volume(1).unwrap().pages, vec![2]);
    assert_eq!(
        (t.meta.writes, t.meta.reads, t.meta.report.header_lines),
        (2, 1, 1)
    );
    assert_eq!(
        t.meta.format,
        "csv:op=3,offset=1,size=2,time=0,volume=4,sep=comma,header=auto,time_unit=us,offset_unit=sector,size_unit=byte,write=write,read=read"
    );
    assert_eq!(t.meta.format.parse::<Format>().unwrap(), format);
    // One volume of the two.
    let opts = ConvertOptions {
        read: ReadOptions {
            device: Some("4".into()),
            ..ReadOptions::default()
        },
        ..ConvertOptions::default()
    };
    let t = convert(&path, format, opts).unwrap();
    assert_eq!((t.meta.writes, t.meta.report.other_devices), (1, 2));
    // `header=skip` drops a first line even of numbers; `none` makes a header a bad line.
    let numbers = fixture("numbers.tsv", "1\t2\t3\n0\t8\tW\n");
    let skip: Format = "csv:offset=0,size=1,op=2,sep=tab,header=skip"
        .parse()
        .unwrap();
    let t = convert(&numbers, skip, ConvertOptions::default()).unwrap();
    assert_eq!((t.meta.writes, t.meta.report.header_lines), (1, 1));
    let none: Format = "csv:time=0,offset=1,size=2,op=3,header=none"
        .parse()
        .unwrap();
    let err = convert(&path, none, ConvertOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("line 1: `op` W or R (unknown opcode) expected; found `ts,lba,len,op,disk`"),
        "{err}"
    );
    // A discard token: its requests are trims, counted apart from reads and writes, and the
    // canonical spec keeps it.
    let spec = "csv:op=0,offset=1,size=2,trim=T";
    let format: Format = spec.parse().unwrap();
    assert!(format.to_string().ends_with(",trim=T"), "{format}");
    let path = fixture("trims.csv", "W,0,8192\nT,0,4096\nR,0,4096\nW,4096,4096\n");
    let t = convert(&path, format, ConvertOptions::default()).unwrap();
    assert_eq!((t.meta.writes, t.meta.reads, t.meta.trims), (2, 1, 1));
    assert_eq!(
        (
            t.trims.at.as_slice(),
            t.trims.first.as_slice(),
            t.trims.pages.as_slice()
        ),
        (&[2u64][..], &[0u32][..], &[1u32][..])
    );
    // Spec errors.
    for (spec, says) in [
        ("csv:offset=1,size=2", "a column for `op`"),
        (
            "csv:op=1,offset=2,size=64",
            "`size` a column number from 0 to 63 (found `64`)",
        ),
        (
            "csv:op=1,offset=2,size=3,sep=pipe",
            "`sep` one of comma, tab, space, semicolon (found `pipe`)",
        ),
        ("csv:op=1,offset=2,size=3,unit=byte", "(found `unit`)"),
        ("csv:op=1,offset=2,size=3,op=4", "`op` given once"),
        (
            "csv:op=1,offset=2,size=3,write=x,read=X",
            "different `write`, `read` and `trim` tokens",
        ),
        (
            "csv:op=1,offset=2,size=3,trim=W",
            "different `write`, `read` and `trim` tokens",
        ),
    ] {
        let err = spec.parse::<Format>().unwrap_err().to_string();
        assert!(err.contains(says) && err.contains(spec), "{spec}: {err}");
    }
}

/// libCacheSim's binary records: vSCSI version 1 (as `cloudPhysicsIO.vscsi`'s first record:
/// WRITE(10) of 512 bytes at sector 42,932,745 at 5,633,898.368802 s), version 2, a command
/// that carries no data (counted, not a request) and `oracleGeneral` (every record a write);
/// a record cut short is an error naming its first byte.
#[test]
fn libcachesim_binaries() {
    let v1 = |sn: u32, len: u32, cmd: u16, lbn: u64, ts: u64| {
        let mut b = Vec::new();
        for x in [sn, len, 1] {
            b.extend(x.to_le_bytes());
        }
        b.extend(cmd.to_le_bytes());
        b.extend(0x100u16.to_le_bytes());
        b.extend(lbn.to_le_bytes());
        b.extend(ts.to_le_bytes());
        b
    };
    let mut bytes = v1(2_147_483_892, 512, 0x2a, 42_932_745, 5_633_898_368_802);
    bytes.extend(v1(2, 4096, 0x28, 8, 5_633_898_400_000));
    bytes.extend(v1(3, 0, 0x35, 0, 5_633_898_500_000));
    let path = fixture("cp.vscsi", "");
    std::fs::write(&path, &bytes).unwrap();
    let t = convert(&path, Format::Vscsi, ConvertOptions::default()).unwrap();
    // Byte 42,932,745 × 512 = 21,981,565,440: page 5,366,593 of 4 KiB.
    assert_eq!(t.pages, vec![5_366_593]);
    assert_eq!(
        (t.meta.writes, t.meta.reads, t.meta.report.non_requests),
        (1, 1, 1)
    );
    std::fs::write(&path, &bytes[..70]).unwrap();
    let err = convert(&path, Format::Vscsi, ConvertOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("cp.vscsi, byte 64: a whole 32-byte vscsi record (6 bytes left) expected"),
        "{err}"
    );
    // Version 2: cmd, ver first; 40 bytes.
    let mut v2 = Vec::new();
    v2.extend(0x2au16.to_le_bytes());
    v2.extend(0x200u16.to_le_bytes());
    for x in [1u32, 8192, 1] {
        v2.extend(x.to_le_bytes());
    }
    for x in [16u64, 1_000_000, 5] {
        v2.extend(x.to_le_bytes());
    }
    std::fs::write(&path, &v2).unwrap();
    let t = convert(&path, Format::Vscsi, ConvertOptions::default()).unwrap();
    // Sectors 16.. (byte 8192), 8192 bytes: pages 2 and 3.
    assert_eq!(t.pages, vec![2, 3]);
    // oracleGeneral: time, obj_id (sector), size, next access.
    let mut og = Vec::new();
    og.extend(5_633_898u32.to_le_bytes());
    og.extend(42_932_746u64.to_le_bytes());
    og.extend(512u32.to_le_bytes());
    og.extend((-1i64).to_le_bytes());
    let ogp = fixture("cp.oracleGeneral.bin", "");
    std::fs::write(&ogp, &og).unwrap();
    let t = convert(&ogp, Format::OracleGeneral, ConvertOptions::default()).unwrap();
    assert_eq!((t.pages.clone(), t.meta.writes), (vec![5_366_593], 1));
    assert_eq!(
        "oracle-general".parse::<Format>().unwrap(),
        Format::OracleGeneral
    );
}
