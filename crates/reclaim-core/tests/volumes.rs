//! Volumes (devices) of a trace: kept apart by the converter, taken out one at a time exactly as
//! a conversion of that device alone, stored in the binary file, and selected by a run.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use proptest::prelude::*;
use reclaim_core::config::SimConfig;
use reclaim_core::sim::Simulator;
use reclaim_core::trace::convert::{
    convert, parse_binary, read_binary, write_binary, write_volumes, ConvertOptions,
};
use reclaim_core::trace::{Format, ReadOptions};

// (Its `error` is for the tests of methods.)
#[allow(dead_code)]
#[path = "support/json.rs"]
mod json;
use json::run;

fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("volumes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn fixture(name: &str, text: &str) -> PathBuf {
    let p = scratch(name);
    std::fs::File::create(&p)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    p
}

/// A name part for the running test's thread (proptest cases of two tests run at once).
fn thread_tag() -> String {
    std::thread::current()
        .name()
        .unwrap_or("t")
        .replace(':', "_")
}

/// blkparse lines of (device, block of 8 sectors, sectors, kind: 0 write, 1 read, 2 discard).
fn blkparse(reqs: &[(u8, u64, u64, u8)]) -> String {
    let mut text = String::new();
    for (i, (d, blk, n, kind)) in reqs.iter().enumerate() {
        let rwbs = ["W", "R", "DS"][usize::from(*kind)];
        writeln!(text, "8,{d} 0 {i} {i}.5 1 Q {rwbs} {} + {n} [p]", blk * 8).unwrap();
    }
    text
}

fn options(rename: bool, device: Option<&str>) -> ConvertOptions {
    ConvertOptions {
        page_size: 4096,
        rename,
        read: ReadOptions {
            device: device.map(str::to_string),
            ..ReadOptions::default()
        },
    }
}

/// `DiskSim` ASCII lines (`time_ms device blkno bcount flags`, 512-byte blocks, flag 0 a write):
/// three devices writing the same block numbers, one device only reading.
const DISKSIM: &str = "0.0 0 0 8 0\n0.5 1 0 8 0\n1.0 2 8 16 0\n1.5 0 8 8 0\n2.0 1 0 8 0\n2.5 3 0 8 1\n3.0 2 0 8 0\n3.5 0 0 8 0\n";

#[test]
fn devices_are_kept_apart_and_each_is_its_conversion_alone() {
    let path = fixture("three.disksim", DISKSIM);
    for rename in [false, true] {
        let all = convert(&path, Format::Disksim, options(rename, None)).unwrap();
        let names: Vec<&str> = all.meta.volumes.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["0", "1", "2", "3"]);
        // Block 0 of devices 0, 1 and 2 are three pages, not one: 2 + 1 + 3 unique pages
        // (device 2 writes blocks 8..24, pages 1 and 2, then block 0).
        assert_eq!(all.meta.unique_pages, 6, "rename={rename}");
        let writes: Vec<u64> = all.meta.volumes.iter().map(|v| v.writes).collect();
        assert_eq!(writes, [3, 2, 2, 0]);
        for (i, name) in names.iter().enumerate() {
            let one = all.volume(i).unwrap();
            let alone = convert(&path, Format::Disksim, options(rename, Some(name))).unwrap();
            assert_eq!(one.pages, alone.pages, "volume {name}, rename={rename}");
            assert_eq!(one.request_pages, alone.request_pages);
            // Times are since the whole trace's first request in both.
            assert_eq!(one.times.len(), alone.times.len());
            assert_eq!(one.meta.unique_pages, alone.meta.unique_pages);
            assert_eq!(one.meta.address_pages, alone.meta.address_pages);
        }
        // Stored and read back, with the volume of each request.
        let out = scratch(&format!("three-{rename}.rtr"));
        write_binary(&all, &out).unwrap();
        let back = read_binary(&out).unwrap();
        assert_eq!(back.request_volumes, all.request_volumes);
        assert_eq!(back.meta, all.meta);
    }
}

#[test]
fn a_damaged_volume_index_names_its_byte() {
    let path = fixture("damaged.disksim", DISKSIM);
    let all = convert(&path, Format::Disksim, options(false, None)).unwrap();
    let mut bytes = Vec::new();
    reclaim_core::trace::convert::encode_binary(&all, &mut bytes).unwrap();
    let n = bytes.len();
    bytes[n - 4..].copy_from_slice(&9u32.to_le_bytes());
    let e = parse_binary(&scratch("damaged.rtr"), &bytes)
        .unwrap_err()
        .to_string();
    assert!(e.contains(&format!("byte {}", n - 4)), "{e}");
    assert!(e.contains("volume indices below the 4 volumes"), "{e}");
}

#[test]
fn one_file_per_volume_with_writes() {
    let path = fixture("split.disksim", DISKSIM);
    let all = convert(&path, Format::Disksim, options(false, None)).unwrap();
    let dir = scratch("split");
    let files = write_volumes(&all, &dir).unwrap();
    let names: Vec<(&str, &str)> = files
        .iter()
        .map(|(v, f)| (v.name.as_str(), f.as_str()))
        .collect();
    // Device 3 only reads: no file.
    assert_eq!(names, [("0", "0.rtr"), ("1", "1.rtr"), ("2", "2.rtr")]);
    let two = read_binary(&dir.join("2.rtr")).unwrap();
    assert_eq!(two.pages, [1, 2, 0]);
    assert_eq!(two.meta.device.as_deref(), Some("2"));
}

#[test]
fn a_run_replays_the_volume_it_names() {
    // MSR names its volumes `Hostname_DiskNumber`.
    let mut text = String::new();
    let mut distinct = [
        std::collections::HashSet::new(),
        std::collections::HashSet::new(),
    ];
    for i in 0..6_000u64 {
        let (disk, page) = (i % 2, (i * 7919 + i / 3) % (300 + 200 * (i % 2)));
        distinct[disk as usize].insert(page);
        writeln!(text, "{i},hm,{disk},Write,{},4096,1", page * 4096).unwrap();
    }
    let path = fixture("two.csv", &text);
    let all = convert(&path, Format::Msr, options(false, None)).unwrap();
    let merged = scratch("two.rtr");
    write_binary(&all, &merged).unwrap();
    let alone = scratch("hm_1.rtr");
    write_binary(
        &convert(&path, Format::Msr, options(false, Some("hm_1"))).unwrap(),
        &alone,
    )
    .unwrap();
    let cfg = |p: &PathBuf, volume: &str| {
        format!(
            r#"{{"workload": "trace:{}", "pages_per_segment": 8{volume}}}"#,
            p.display()
        )
    };
    let a = run(&cfg(&merged, r#", "volume": "hm_1""#));
    let b = run(&cfg(&alone, ""));
    assert_eq!(
        (a.user_writes, a.gc_writes, a.erases),
        (b.user_writes, b.gc_writes, b.erases)
    );
    assert_eq!(a.method.unwrap().pass_wa, b.method.unwrap().pass_wa);
    // Both volumes on one device, each in its own pages.
    let both = run(&cfg(&merged, r#", "volume": "all""#));
    let per_volume: Vec<u64> = all.meta.volumes.iter().map(|v| v.unique_pages).collect();
    assert_eq!(
        both.method.unwrap().working_set,
        per_volume.iter().sum::<u64>()
    );
    assert_eq!(
        per_volume,
        [distinct[0].len() as u64, distinct[1].len() as u64]
    );
    // A trace of several volumes and no choice: an error that lists them.
    let e = Simulator::new(&SimConfig::from_json(&cfg(&merged, "")).unwrap())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("one of the trace's 2 volumes (`hm_0`, `hm_1`)"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any interleaving of devices: each volume taken out of the whole is the conversion of that
    /// device alone, and the volumes' unique pages add up to the whole's.
    #[test]
    fn any_volume_is_its_conversion_alone(
        reqs in prop::collection::vec((0u8..4, 0u64..64, 1u64..20, any::<bool>()), 1..80),
        rename in any::<bool>(),
    ) {
        let mut text = String::new();
        for (i, (d, blk, n, read)) in reqs.iter().enumerate() {
            writeln!(text, "{i}.0 {d} {} {n} {}", blk * 8, u8::from(*read)).unwrap();
        }
        let path = fixture(&format!("prop-{}.disksim", thread_tag()), &text);
        let all = convert(&path, Format::Disksim, options(rename, None)).unwrap();
        let mut unique = 0;
        for (i, v) in all.meta.volumes.iter().enumerate() {
            let one = all.volume(i).unwrap();
            let alone = convert(&path, Format::Disksim, options(rename, Some(&v.name)));
            match alone {
                Ok(alone) => {
                    prop_assert_eq!(&one.pages, &alone.pages);
                    prop_assert_eq!(&one.request_pages, &alone.request_pages);
                }
                // A device with requests always converts alone.
                Err(e) => prop_assert!(false, "{}", e),
            }
            unique += v.unique_pages;
        }
        prop_assert_eq!(unique, all.meta.unique_pages);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With discards (blkparse `D`) too: each volume's writes and discards, taken out of the
    /// whole, are those of its conversion alone, renamed or not, and survive the binary file.
    #[test]
    fn any_volume_keeps_its_discards(
        reqs in prop::collection::vec((0u8..3, 0u64..48, 1u64..12, 0u8..3), 1..80),
        rename in any::<bool>(),
    ) {
        let path = fixture(&format!("trims-{}.blkparse", thread_tag()), &blkparse(&reqs));
        let Ok(all) = convert(&path, Format::Blkparse, options(rename, None)) else {
            // No request at all: nothing to compare.
            return Ok(());
        };
        let mut bytes = Vec::new();
        reclaim_core::trace::convert::encode_binary(&all, &mut bytes).unwrap();
        let back = parse_binary(&path, &bytes).unwrap();
        prop_assert_eq!(&back.trims, &all.trims);
        for (i, v) in all.meta.volumes.iter().enumerate() {
            let one = all.volume(i).unwrap();
            let alone = convert(&path, Format::Blkparse, options(rename, Some(&v.name))).unwrap();
            prop_assert_eq!(&one.pages, &alone.pages);
            prop_assert_eq!(&one.trims.at, &alone.trims.at);
            prop_assert_eq!(&one.trims.first, &alone.trims.first);
            prop_assert_eq!(&one.trims.pages, &alone.trims.pages);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A conversion that spills its arrays to disk in pieces writes the same file as one held in
    /// memory: volumes moved to their ranges, times, discards, renamed or not.
    #[test]
    fn a_spilled_conversion_is_the_same_file(
        reqs in prop::collection::vec((0u8..3, 0u64..48, 1u64..12, 0u8..3), 1..80),
        rename in any::<bool>(),
        every in 1usize..40,
    ) {
        let tag = thread_tag();
        let path = fixture(&format!("spill-{tag}.blkparse"), &blkparse(&reqs));
        let Ok(memory) = convert(&path, Format::Blkparse, options(rename, None)) else {
            return Ok(());
        };
        let mut expected = Vec::new();
        reclaim_core::trace::convert::encode_binary(&memory, &mut expected).unwrap();
        let out = scratch(&format!("spill-{tag}.rtr"));
        let meta = reclaim_core::trace::convert::Converter::spilling(&path, Format::Blkparse, options(rename, None), &out)
            .unwrap()
            .spill_every(every)
            .finish_to(&out)
            .unwrap();
        prop_assert_eq!(&meta, &memory.meta);
        prop_assert!(std::fs::read(&out).unwrap() == expected, "the files differ");
        // The pieces are gone.
        let dir = out.parent().unwrap();
        let left: Vec<_> = std::fs::read_dir(dir).unwrap().filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.starts_with(&format!("spill-{tag}.rtr.part-")).then_some(name)
        }).collect();
        prop_assert!(left.is_empty(), "{:?}", left);
    }
}
