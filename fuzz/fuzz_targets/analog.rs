//! The check shared by the capture fuzz targets with analog channels (sigrok, Saleae
//! binary, VCD `real`, oscilloscope CSV): every analog channel of a capture read whole,
//! measured by name (`only_channels`, thresholded while read: spooled for the default
//! levels, straight through with given ones), must give exactly the digital channel that
//! thresholding the kept samples gives, and keep no samples.

use latscope_trace::import::{analog, read_bytes, Format, Options};

pub fn check(data: &[u8], format: Format) {
    let opts = Options {
        format: Some(format),
        ..Default::default()
    };
    let Ok(cap) = read_bytes(data, "fuzz-input", &opts) else {
        return;
    };
    assert!(cap.validate().is_ok());
    // the analog channels (a scope CSV's columns are its digital channels too); a few:
    // each measured read spools and reads back
    let mut names: Vec<String> = cap.analog.iter().map(|a| a.name.clone()).collect();
    if format == Format::ScopeCsv {
        names.extend(cap.channels.iter().map(|c| c.name.clone()));
    }
    names.dedup();
    names.truncate(3);
    for name in &names {
        for (th, h) in [(None, None), (Some(0.5), Some(0.1))] {
            let o = Options {
                threshold: th,
                hysteresis: h,
                ..opts.clone()
            };
            let mut want = read_bytes(data, "fuzz-input", &o).expect("read whole again");
            analog::add_thresholded(&mut want, &[name], th, h);
            let want = want.channels.iter().rev().find(|c| &c.name == name).cloned();
            let one = read_bytes(
                data,
                "fuzz-input",
                &Options {
                    only_channels: Some(vec![name.clone()]),
                    ..o.clone()
                },
            )
            .expect("reads with an analog channel measured too");
            assert!(one.analog.iter().all(|a| a.values.is_empty()));
            let got = one.channels.iter().rev().find(|c| &c.name == name).cloned();
            assert_eq!(got, want, "{name} {th:?} {h:?}");
        }
    }
}
