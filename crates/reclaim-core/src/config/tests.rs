use super::*;

#[test]
fn specs_round_trip() {
    for s in [
        "fifo",
        "greedy:tie=random",
        "d-choices:d=10",
        "gra:d=1",
        "windowed:w=500,tie=oldest",
        "cost-benefit",
        "random",
        "age-threshold",
        "age-threshold:nat=0.1,buckets=10,sort=fifo,age=tw",
        "fitness:at=12,buckets=exact,sort=tree",
        "fitness:nat=heuristic",
        "cost-benefit:form=lomet",
        "mdc",
        "mdc:freq=exact",
        "mdc:decline=pages",
        "mdc:freq=exact,decline=paper",
        "multi-log",
        "fitness:sort=tree,ties=last",
        "age-threshold:sort=tree,ties=last,requeue=every",
    ] {
        let p: PolicySpec = s.parse().unwrap();
        assert_eq!(p.to_string().parse::<PolicySpec>().unwrap(), p);
    }
    for s in [
        "single",
        "double:copy=oldest",
        "oracle",
        "regions:spare=0.4/0.6",
        "age-sorted",
        "age-sorted:dtg_exp=2,fsc_exp=3,dtg_sort=1,fsc_sort=0,dtg_decay=5,decay_rule=reciprocal,split=mean",
        "age-sorted:fsc_number=min,open_age=zero,first_age=zero",
        "age-sorted:open_age=zero",
        "sort-buffer",
        "sort-buffer:segments=4,sort=none,rewrite=absorb",
        "multi-log",
        "multi-log:logs=4,freq=exact",
    ] {
        let p: PlacementSpec = s.parse().unwrap();
        assert_eq!(p.to_string().parse::<PlacementSpec>().unwrap(), p, "{s}");
    }
    // The defaults of Stockmeyer §2.3: exponents 4, full sorting, decays 10.
    let PlacementSpec::AgeSorted(a) = "age-sorted".parse().unwrap() else {
        unreachable!()
    };
    assert_eq!((a.dtg_exp, a.fsc_exp, a.dtg_sort, a.fsc_sort), (4, 4, 4, 4));
    assert!((a.dtg_decay - 10.0).abs() < 1e-12 && (a.fsc_decay - 10.0).abs() < 1e-12);
    // A decay whose weight would exceed 1 is refused by name.
    let e = "age-sorted:dtg_decay=0.5,decay_rule=reciprocal"
        .parse::<PlacementSpec>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("≥ 1 with `decay_rule=reciprocal`"), "{e}");
    let w: WorkloadSpec = "shifting:r=0.8,f=0.2,period=2.5".parse().unwrap();
    assert_eq!(w.to_string().parse::<WorkloadSpec>().unwrap(), w);
    let w: WorkloadSpec = "locality:fa=0.1,r=0.8/0.2,f=0.2/0.8".parse().unwrap();
    assert_eq!(
        w,
        WorkloadSpec::Locality {
            fa: 0.1,
            r: vec![0.8, 0.2],
            f: vec![0.2, 0.8]
        }
    );
    assert_eq!(
        "fill+10x".parse::<WarmupSpec>().unwrap(),
        WarmupSpec {
            fill: true,
            multiple: 10.0,
            trace_share: 0.0
        }
    );
    let w: WarmupSpec = "fill+10x+20%".parse().unwrap();
    assert!((w.trace_share - 0.2).abs() < 1e-12);
    assert_eq!(w.to_string().parse::<WarmupSpec>().unwrap(), w);
    assert_eq!("5e6".parse::<Amount>().unwrap(), Amount::Count(5_000_000));
    assert_eq!("20x".parse::<Amount>().unwrap(), Amount::Multiple(20.0));
}

#[test]
fn errors_name_parameter_value_and_range() {
    let e = "d-choices:d=x"
        .parse::<PolicySpec>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("policy.d") && e.contains("`x`") && e.contains("≥ 1"),
        "{e}"
    );
    let e = "hotcold:r=1.5,f=0.2"
        .parse::<WorkloadSpec>()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("workload.r") && e.contains("1.5") && e.contains("(0, 1)"),
        "{e}"
    );
    let c = SimConfig {
        spare: Some(1.2),
        ..SimConfig::default()
    };
    let e = c.validate().unwrap_err().to_string();
    assert!(
        e.contains("`spare`") && e.contains("1.2") && e.contains("(0, 1)"),
        "{e}"
    );
    let c = SimConfig {
        policy: PolicySpec::DChoices(5000),
        ..SimConfig::default()
    };
    assert!(c
        .validate()
        .unwrap_err()
        .to_string()
        .contains("[1, segments = 1024]"));
}

/// Each bad field of a JSON configuration is named with its value and its range from
/// `parameters()`, never with the JSON parser's line and column.
#[test]
fn json_errors_name_the_field() {
    let err = |j: &str| SimConfig::from_json(j).unwrap_err().to_string();
    assert_eq!(
        err(r#"{"segments": -5}"#),
        "invalid value for `segments`: -5 (expected a whole number ≥ 4, with segments × pages_per_segment < 2³²)"
    );
    assert_eq!(
        err(r#"{"spare": "0.1"}"#),
        "invalid value for `spare`: `0.1` (expected a number in (0, 1))"
    );
    assert!(err(r#"{"spares": 0.1}"#).starts_with(
        "invalid value for `config`: unknown parameter `spares` (expected one of segments, "
    ));
    assert_eq!(
        err(r#"{"streams": "pool"}"#),
        "invalid value for `streams`: pool (expected `hole` or `cache`)"
    );
    assert!(
        err(r#"{"policy": "d-choices:d=-1"}"#).starts_with("invalid value for `policy.d`: `-1`")
    );
    assert!(err(r#"{"free_empty": 1}"#)
        .starts_with("invalid value for `free_empty`: 1 (expected true or false)"));
    assert!(err("[1]").starts_with("invalid value for `config`: [1] (expected a JSON object"));
    for p in parameters() {
        assert!(
            !p.range.is_empty() && !p.help.is_empty() && !p.default.is_empty(),
            "{}",
            p.name
        );
    }
    // Every field of the configuration is a parameter, and every parameter a field.
    // A timed run's parameters and `precision` are serialized only when set (a run without
    // them keeps its canonical text): set them here.
    let timed = SimConfig {
        device: Some("femu".parse().unwrap()),
        arrivals: Some(crate::time::ArrivalSpec::default()),
        reads: Some(0.5),
        precision: Some("wa:rel=0.001".parse().unwrap()),
        ..SimConfig::default()
    };
    let fields: Vec<String> = match serde_json::to_value(timed).unwrap() {
        serde_json::Value::Object(m) => m.keys().cloned().collect(),
        _ => unreachable!(),
    };
    let mut names: Vec<String> = parameters().iter().map(|p| p.name.to_string()).collect();
    names.sort();
    let mut sorted = fields.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn a_repeated_argument_is_an_error() {
    let e = "hotcold:r=0.8,r=0.7,f=0.2"
        .parse::<WorkloadSpec>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("`r` given twice"), "{e}");
}

#[test]
fn logical_capacity_follows_spare() {
    // Van Houdt §2.1: bU logical pages with U = (1 − S_f)·N.
    let c = SimConfig {
        segments: Some(10_000),
        pages_per_segment: 32,
        spare: Some(0.07),
        ..SimConfig::default()
    };
    assert_eq!(c.geometry().unwrap().logical_pages, 9_300 * 32);
}

#[test]
fn json_rejects_unknown_fields() {
    let e = SimConfig::from_json(r#"{"segmnts": 10}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("segmnts"), "{e}");
    let c = SimConfig::from_json(r#"{"segments": 64, "policy": "d-choices:d=4", "writes": 1000}"#)
        .unwrap();
    assert_eq!(c.policy, PolicySpec::DChoices(4));
    assert_eq!(c.writes, Some(Amount::Count(1000)));
}

/// Parses `text` as a spec of `family`.
fn parse_in(family: crate::spec::Family, text: &str) -> Result<()> {
    use crate::spec::Family;
    match family {
        Family::Policy => text.parse::<PolicySpec>().map(drop),
        Family::Placement => text.parse::<PlacementSpec>().map(drop),
        Family::Trigger => text.parse::<GcSpec>().map(drop),
        Family::Workload => text.parse::<WorkloadSpec>().map(drop),
        Family::Sizes => text.parse::<SizeSpec>().map(drop),
        Family::Method => text.parse::<MethodSpec>().map(drop),
        Family::Device => text.parse::<crate::time::DeviceSpec>().map(drop),
        Family::Arrivals => text.parse::<crate::time::ArrivalSpec>().map(drop),
    }
}

/// The registries and the parsers agree (an invariant of the declarations): every declared key
/// reaches its scheme's parser, an undeclared one is refused by name, and each scheme's name and
/// aliases select it.
#[test]
fn declarations_and_parsers_agree() {
    let all = schemes();
    assert_eq!(
        all.len(),
        crate::policy::POLICIES.len()
            + crate::placement::PLACEMENTS.len()
            + crate::trigger::TRIGGERS.len()
            + crate::workload::WORKLOADS.len()
            + crate::workload::sizes::SIZES.len()
            + crate::method::METHODS.len()
            + crate::time::spec::PRESETS.len()
            + crate::time::arrivals::ARRIVALS.len()
    );
    for info in &all {
        assert!(info.usage().starts_with(info.name), "{}", info.usage());
        let positional = info.params.iter().any(|p| p.key.is_empty());
        if !positional {
            let e = parse_in(info.family, &format!("{}:no_such_key=1", info.name)).unwrap_err();
            assert!(
                e.to_string().contains("unknown argument `no_such_key`"),
                "{}: {e}",
                info.name
            );
        }
        for p in info.params.iter().filter(|p| !p.key.is_empty()) {
            let value = p.default.unwrap_or(p.values);
            if let Err(e) = parse_in(info.family, &format!("{}:{}={value}", info.name, p.key)) {
                assert!(
                    !e.to_string().contains("unknown argument"),
                    "{}.{}: {e}",
                    info.name,
                    p.key
                );
            }
        }
        for name in std::iter::once(&info.name).chain(info.aliases) {
            // A scheme with required parameters asks for them; none is an unknown name.
            if let Err(e) = parse_in(info.family, name) {
                let text = e.to_string();
                assert!(!text.contains("one of `"), "{name}: {text}");
            }
        }
    }
    let e = "no-such-policy"
        .parse::<PolicySpec>()
        .unwrap_err()
        .to_string();
    for info in crate::policy::POLICIES {
        assert!(e.contains(&info.usage()), "{e}");
    }
}

/// A configuration replaying a trace (the file is not read: `geometry_with` takes its size).
fn on_trace(json: &str) -> SimConfig {
    let base = r#"{"workload": "trace:t.rtr""#;
    let text = if json.is_empty() {
        format!("{base}}}")
    } else {
        format!("{base}, {json}}}")
    };
    SimConfig::from_json(&text).unwrap()
}

#[test]
fn a_device_only_the_trace_writes_holds_its_pages_and_no_more() {
    // `precondition` (the default): 1,000 pages at spare 0.1 need 1,000 / 0.9 / 64 = 17.4
    // segments; 17 leave 15 × 64 = 960 pages beside the 2 kept open or free, too few, so 18:
    // spare 1 − 1,000 / 1,152, stated, where 20 segments and 1,152 logical pages (152 never
    // written, spare 0.22 in effect) were simulated before.
    let g = on_trace("").geometry_with(Some(1_000)).unwrap();
    assert_eq!((g.segments, g.logical_pages), (18, 1_000));
    // Large enough, the nearest whole number of segments: 100,000 / 0.9 / 64 = 1,736.1.
    let g = on_trace("").geometry_with(Some(100_000)).unwrap();
    assert_eq!((g.segments, g.logical_pages), (1_736, 100_000));
    // A given device keeps its segments; its data are the trace's pages.
    let g = on_trace(r#""segments": 100"#)
        .geometry_with(Some(1_000))
        .unwrap();
    assert_eq!((g.segments, g.logical_pages), (100, 1_000));
    // A warm-up of synthetic data fills the whole logical space: that stays fill × physical
    // (Li et al. §6.1's device), grown past the trace's pages where the kept segments need it.
    let g = on_trace(r#""method": "li""#)
        .geometry_with(Some(1_000))
        .unwrap();
    assert_eq!((g.segments, g.logical_pages), (20, 1_152));
    let g = on_trace(r#""method": "stockmeyer:prefix=0""#)
        .geometry_with(Some(100_000))
        .unwrap();
    assert_eq!((g.segments, g.logical_pages), (1_737, 100_051));
}

#[test]
fn a_conflict_of_capacities_names_the_values_given() {
    let err = SimConfig::from_json(r#"{"spare": 0.1, "fill": 0.8}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("spare=0.1, fill=0.8"), "{err}");
    assert!(!err.contains("Some("), "{err}");
}

#[test]
fn a_warm_up_share_reads_back_as_written() {
    // 14.7929% was shown as 14.792900000000001% (the fraction times 100 in binary).
    let w: WarmupSpec = "fill+2x+14.7929%".parse().unwrap();
    assert_eq!(w.to_string(), "fill+2x+14.7929%");
    assert_eq!(w.to_string().parse::<WarmupSpec>().unwrap(), w);
}

#[test]
fn a_tiny_parameter_is_canonical_in_its_shortest_form() {
    // The spec's `{}` wrote tol=1e-300 as 302 characters into the JSON and the table's title.
    let c =
        SimConfig::from_json(r#"{"workload": "trace:t.rtr", "method": "precondition:tol=1e-300"}"#)
            .unwrap();
    let json = serde_json::to_string(&c).unwrap();
    assert!(
        json.contains(r#""method":"precondition:tol=1e-300,max_passes=10,measure=settled""#),
        "{json}"
    );
    assert_eq!(SimConfig::from_json(&json).unwrap().method, c.method);
    // Ordinary values keep `{}`'s form, and so the canonical text (and the tasks' keys).
    let c = SimConfig::from_json(r#"{"policy": "d-choices:d=10", "spare": 0.07}"#).unwrap();
    let json = serde_json::to_string(&c).unwrap();
    assert!(
        json.contains(r#""policy":"d-choices:d=10""#) && json.contains(r#""spare":0.07"#),
        "{json}"
    );
}

#[test]
fn a_device_too_large_for_a_trace_names_its_address_space() {
    // `li` sizes the device from the largest page id: one write at page 2³² − 2 asks for more
    // than 2³² − 2 physical pages; the message says where that comes from and what to do.
    let err = on_trace(r#""method": "li""#)
        .geometry_with(Some(4_294_967_295))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the trace's address space is 4294967295 pages"),
        "{err}"
    );
    assert!(err.contains("`--rename`"), "{err}");
}
