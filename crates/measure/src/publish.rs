//! Live metrics published while `measure` runs: `--listen ADDR:PORT` serves `/metrics`
//! over HTTP, `--openmetrics FILE` rewrites a file atomically every few seconds (for
//! node_exporter's textfile collector). Both run on their own thread and read the
//! counters through lock-free snapshots ([`crate::metrics`]), so a scrape never delays a
//! measuring thread.

use crate::exposition::{self, Format, Meta};
use crate::metrics::LiveMetrics;
use crate::MeasureError;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often `--openmetrics` rewrites its file.
pub const FILE_EVERY: Duration = Duration::from_secs(5);

/// The running publishers; [`Publisher::finish`] stops them.
pub struct Publisher {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    live: Arc<LiveMetrics>,
    meta: Arc<Meta>,
    file: Option<PathBuf>,
    /// The last failure of a periodic file write (the run goes on; reported at the end).
    file_error: Arc<Mutex<Option<String>>>,
    /// The address actually bound (port 0 picks a free one).
    pub addr: Option<std::net::SocketAddr>,
}

fn write_file(
    path: &std::path::Path,
    live: &LiveMetrics,
    meta: &Meta,
    running: bool,
) -> Result<(), latscope_core::outfile::OutputError> {
    let text = exposition::render(&live.snapshot(), meta, Format::Prometheus, running);
    latscope_core::outfile::write_atomically(path, "--openmetrics", text.as_bytes())
}

fn respond(req: tiny_http::Request, live: &LiveMetrics, meta: &Meta) {
    let path = req.url().split('?').next().unwrap_or("");
    let ok_method = matches!(
        req.method(),
        tiny_http::Method::Get | tiny_http::Method::Head
    );
    let header = |k: &str, v: &str| tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).ok();
    let reply = if !ok_method {
        tiny_http::Response::from_string("only GET and HEAD\n").with_status_code(405)
    } else if path == "/metrics" {
        let accept = req
            .headers()
            .iter()
            .find(|h| h.field.equiv("Accept"))
            .map(|h| h.value.as_str().to_string());
        let fmt = Format::from_accept(accept.as_deref());
        let body = exposition::render(&live.snapshot(), meta, fmt, true);
        let mut r = tiny_http::Response::from_string(body);
        if let Some(h) = header("Content-Type", fmt.content_type()) {
            r = r.with_header(h);
        }
        r
    } else if path == "/" {
        let mut r = tiny_http::Response::from_string(
            "<html><body>latscope measure: <a href=\"/metrics\">/metrics</a></body></html>\n",
        );
        if let Some(h) = header("Content-Type", "text/html; charset=utf-8") {
            r = r.with_header(h);
        }
        r
    } else {
        tiny_http::Response::from_string("not found: try /metrics\n").with_status_code(404)
    };
    // A scraper that went away is its own problem.
    let _ = req.respond(reply);
}

impl Publisher {
    /// Binds `listen` and writes `file` once (both fail here, before anything is
    /// measured, with an error naming the option), then starts the threads.
    pub fn start(
        live: Arc<LiveMetrics>,
        meta: Meta,
        listen: Option<&str>,
        file: Option<PathBuf>,
    ) -> Result<Publisher, MeasureError> {
        let meta = Arc::new(meta);
        let stop = Arc::new(AtomicBool::new(false));
        let file_error = Arc::new(Mutex::new(None));
        let mut threads = Vec::new();
        let mut addr = None;
        if let Some(l) = listen {
            let server = tiny_http::Server::http(l).map_err(|e| {
                MeasureError::Input(format!("--listen {l}: cannot listen there: {e}"))
            })?;
            addr = server.server_addr().to_ip();
            let (st, lv, mt) = (stop.clone(), live.clone(), meta.clone());
            let h = std::thread::Builder::new()
                .name("latscope-metrics-http".into())
                .stack_size(256 << 10)
                .spawn(move || {
                    while !st.load(Ordering::Relaxed) {
                        match server.recv_timeout(Duration::from_millis(100)) {
                            Ok(Some(req)) => respond(req, &lv, &mt),
                            Ok(None) => {}
                            Err(_) => std::thread::sleep(Duration::from_millis(100)),
                        }
                    }
                })
                .map_err(|e| MeasureError::Setup(format!("--listen: cannot start: {e}")))?;
            threads.push(h);
        }
        if let Some(p) = &file {
            write_file(p, &live, &meta, true).map_err(|e| MeasureError::Setup(e.to_string()))?;
            let (st, lv, mt, fe, p) = (
                stop.clone(),
                live.clone(),
                meta.clone(),
                file_error.clone(),
                p.clone(),
            );
            let h = std::thread::Builder::new()
                .name("latscope-metrics-file".into())
                .stack_size(256 << 10)
                .spawn(move || {
                    let mut last = Instant::now();
                    while !st.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(100));
                        if last.elapsed() >= FILE_EVERY {
                            last = Instant::now();
                            if let Err(e) = write_file(&p, &lv, &mt, true) {
                                if let Ok(mut g) = fe.lock() {
                                    *g = Some(e.to_string());
                                }
                            }
                        }
                    }
                })
                .map_err(|e| MeasureError::Setup(format!("--openmetrics: cannot start: {e}")))?;
            threads.push(h);
        }
        Ok(Publisher {
            stop,
            threads,
            live,
            meta,
            file,
            file_error,
            addr,
        })
    }

    /// Stops serving and writes the file a last time with `latscope_measure_running 0`.
    /// Returns a warning when a periodic or the last write failed.
    pub fn finish(self) -> Option<String> {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
        let mut warning = self.file_error.lock().ok().and_then(|mut g| g.take());
        if let Some(p) = &self.file {
            if let Err(e) = write_file(p, &self.live, &self.meta, false) {
                warning = Some(e.to_string());
            }
        }
        warning
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn get(addr: std::net::SocketAddr, path: &str, accept: &str) -> String {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.0\r\nHost: x\r\nAccept: {accept}\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn serves_metrics_and_writes_the_file() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("latscope.prom");
        let live = Arc::new(LiveMetrics::new(&[1]));
        live.cpu(0).unwrap().record(2_500);
        let meta = Meta {
            policy: "fifo".into(),
            interval_ns: 1_000_000,
            ..Meta::default()
        };
        let p =
            Publisher::start(live.clone(), meta, Some("127.0.0.1:0"), Some(file.clone())).unwrap();
        let addr = p.addr.unwrap();
        let r = get(addr, "/metrics", "text/plain");
        assert!(
            r.starts_with("HTTP/1.1 200") || r.starts_with("HTTP/1.0 200"),
            "{r}"
        );
        assert!(r.contains("text/plain; version=0.0.4"), "{r}");
        assert!(
            r.contains("latscope_samples_total{cpu=\"1\",policy=\"fifo\",interval=\"0.001\"} 1"),
            "{r}"
        );
        live.cpu(0).unwrap().record(2_500);
        let r = get(
            addr,
            "/metrics",
            "application/openmetrics-text; version=1.0.0",
        );
        assert!(r.contains("application/openmetrics-text"), "{r}");
        assert!(
            r.contains("latscope_samples_total{cpu=\"1\",policy=\"fifo\",interval=\"0.001\"} 2"),
            "{r}"
        );
        assert!(r.trim_end().ends_with("# EOF"), "{r}");
        assert!(get(addr, "/nope", "*/*").contains(" 404 "));
        // The file exists from the start, and says the run ended after finish.
        let first = std::fs::read_to_string(&file).unwrap();
        assert!(first.contains("latscope_measure_running 1"), "{first}");
        assert!(p.finish().is_none());
        let last = std::fs::read_to_string(&file).unwrap();
        assert!(last.contains("latscope_measure_running 0"), "{last}");
        assert!(
            last.contains("latscope_samples_total{cpu=\"1\",policy=\"fifo\",interval=\"0.001\"} 2")
        );
        // Serving stopped.
        assert!(std::net::TcpStream::connect(addr).is_err() || get_fails(addr));
    }

    fn get_fails(addr: std::net::SocketAddr) -> bool {
        let Ok(mut s) = std::net::TcpStream::connect(addr) else {
            return true;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
        let _ = write!(s, "GET /metrics HTTP/1.0\r\n\r\n");
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        !out.contains("200")
    }

    #[test]
    fn a_bad_address_is_an_input_error_naming_it() {
        let live = Arc::new(LiveMetrics::new(&[0]));
        let e = Publisher::start(live, Meta::default(), Some("999.1.1.1:80"), None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("--listen 999.1.1.1:80"), "{e}");
    }
}
