//! CSV quoting (RFC 4180, read with the `csv` crate): separators and doubled quotes inside
//! quoted header names and values, and errors that name the line and column.

use latscope_core::time::Picos;
use latscope_trace::import::{self, Options};

#[test]
fn quoted_separators_in_header_names_and_values() {
    // `"a,b"` and `"Clock, main"` are one column each; `"1"` / `"0"` are quoted levels;
    // the time column is quoted too, and `""` is a quote inside a name.
    let csv = "\"Time [s]\",\"a,b\",\"Clock, main\",\"say \"\"hi\"\"\"\n\
               \"0.000001\",\"0\",1,0\n\
               0.000002,\"1\",\"1\",0\n\
               \"0.000004\",0,\"0\",\"1\"\n";
    let c = import::read_bytes(csv.as_bytes(), "q.csv", &Options::default()).unwrap();
    let names: Vec<&str> = c.channels.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a,b", "Clock, main", "say \"hi\""]);
    assert!(!c.channels[0].initial);
    assert_eq!(
        c.channels[0].edges,
        vec![Picos::from_us(2), Picos::from_us(4)]
    );
    assert!(c.channels[1].initial);
    assert_eq!(c.channels[1].edges, vec![Picos::from_us(4)]);
    assert_eq!(c.channels[2].edges, vec![Picos::from_us(4)]);
    assert_eq!(c.start, Picos::from_us(1));
    assert_eq!(c.end, Picos::from_us(4));
}

#[test]
fn quoted_fields_with_semicolons() {
    let csv = "\"Time [us]\";\"x;y\";z\n0;1;0\n\"2,5\";0;0\n";
    // `2,5` is not a number here: the error names the line and the time column
    let e = import::read_bytes(csv.as_bytes(), "semi.csv", &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("semi.csv"), "{e}");
    assert!(e.contains("line 3"), "{e}");
    assert!(e.contains("column 1"), "{e}");
    let ok = "\"Time [us]\";\"x;y\";z\n0;1;0\n2;0;0\n";
    let c = import::read_bytes(ok.as_bytes(), "semi.csv", &Options::default()).unwrap();
    assert_eq!(c.channels[0].name, "x;y");
    assert_eq!(c.channels[0].edges, vec![Picos::from_us(2)]);
}

#[test]
fn a_bad_level_names_line_and_column() {
    let csv = "Time [s],\"a,b\",c\n0,0,0\n1,0,0\n\n2,\"hi, there\",1\n";
    let e = import::read_bytes(csv.as_bytes(), "bad.csv", &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.csv"), "{e}");
    assert!(e.contains("line 5"), "{e}");
    assert!(e.contains("column 2 ('a,b')"), "{e}");
    assert!(e.contains("'hi, there'"), "{e}");
    // the last line without a line break, after a comment line
    let csv = "Time [s],a\n0,0\n; note\n1,2";
    let e = import::csv::read(csv.as_bytes(), "end.csv", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 4"), "{e}");
    assert!(e.contains("column 2 ('a'): '2'"), "{e}");
}

#[test]
fn a_space_before_a_quote_still_quotes() {
    let csv = "Time [s], \"a,b\",  \"Clock, main\"\n0, 0, \"1\"\n1e-6, 1,0\n";
    let c = import::csv::read(csv.as_bytes(), "sp.csv", None).unwrap();
    let names: Vec<&str> = c.channels.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a,b", "Clock, main"]);
    assert_eq!(c.channels[0].edges, vec![Picos::from_us(1)]);
    assert_eq!(c.channels[1].edges, vec![Picos::from_us(1)]);
}
