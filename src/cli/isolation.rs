//! Natively, each file is parsed in a child process (`quire parse-worker`, hidden): a library that
//! overflows its stack, aborts, runs past [`SECONDS_PER_FILE`] or grows past [`MEMORY_PER_FILE`] fails that
//! file only, named with the reason, and the next file gets a fresh child. The engine's own budgets come
//! first (each named in docs/RELIABILITY.md); this is the last guard, for what no budget of ours can see
//! inside a library. The browser's engine worker is restarted the same way after a crash.
//!
//! Requests and answers are postcard frames, each behind its length as 8 little-endian bytes.

use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use quire::corpus::{CorpusSettings, IngestError, IngestFailure, ParsedFile, SourceFile};

/// Time one file may take to parse: the largest real files measured (a 64 MiB PDF of text) take a few
/// seconds, and a file past this is stuck, not slow.
pub const SECONDS_PER_FILE: u64 = 60;

/// Resident memory the child may reach on one file: reading the real files measured (the largest PDFs,
/// the Rust Reference's 4.4 MB all-in-one page) takes a few hundred megabytes.
pub const MEMORY_PER_FILE: u64 = 960 << 20;

/// How often the parent checks the child's clock and memory while it waits.
const POLL: Duration = Duration::from_millis(25);

/// What the child receives: the settings, the file's name and its bytes (sent borrowed, read owned).
type Request = (CorpusSettings, String, Vec<u8>);

type Answer = Result<ParsedFile, IngestError>;

/// Why the child gave no answer for a file: that file's failure, as its report line says it.
#[derive(Debug, thiserror::Error)]
enum NoAnswer {
    #[error("the file's reader answered badly: {0}")]
    Garbled(postcard::Error),
    #[error("reading it took longer than {SECONDS_PER_FILE} s; left out")]
    TooSlow,
    #[error("reading it needed more than {} MiB of memory; left out", MEMORY_PER_FILE >> 20)]
    PastMemory,
    #[error("its reader ran out of stack (the file nests too deeply); left out")]
    StackOverflow,
    #[error("reading it needed more memory than there is; left out")]
    OutOfMemory,
    /// Any other end, with the child's exit status where it was known.
    #[error("its reader crashed ({}); left out", .0.map_or_else(|| "ended".to_string(), |status| status.to_string()))]
    Crashed(Option<ExitStatus>),
}

/// A child process that parses files one at a time, started when first needed and after each crash.
#[derive(Default)]
pub struct ParseWorker {
    running: Option<Running>,
}

struct Running {
    child: Child,
    requests: ChildStdin,
    answers: Receiver<Option<Vec<u8>>>,
    /// Reads what the child writes to stderr and ends with its last 4 KiB once the child has exited: a
    /// library's abort says why there.
    last_words: Option<std::thread::JoinHandle<String>>,
}

impl ParseWorker {
    /// `file` parsed in the child; a crash, a stall or runaway memory becomes that file's failure. Where no
    /// child can be started, the file is parsed here.
    pub fn parse(&mut self, file: &SourceFile, settings: &CorpusSettings) -> Answer {
        let Some(running) = self.started() else { return quire::corpus::parse_file(file, settings) };
        let sent = postcard::to_stdvec(&(settings, file.path.as_str(), file.bytes.as_slice()))
            .is_ok_and(|frame| write_frame(&mut running.requests, &frame).is_ok());
        let outcome = match sent {
            true => running.wait_for_answer(),
            false => Err(running.crash_reason()),
        };
        outcome.unwrap_or_else(|reason| {
            self.stop();
            Err(IngestError { file: file.path.clone(), failure: IngestFailure::Malformed(reason.to_string()) })
        })
    }

    fn started(&mut self) -> Option<&mut Running> {
        if self.running.is_none() {
            self.running =
                Running::start().inspect_err(|e| eprintln!("warning: files are parsed in this process ({e})")).ok();
        }
        self.running.as_mut()
    }

    fn stop(&mut self) {
        if let Some(mut running) = self.running.take() {
            let _ = running.child.kill();
            let _ = running.child.wait();
        }
    }
}

impl Drop for ParseWorker {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Running {
    fn start() -> std::io::Result<Running> {
        let mut child = Command::new(std::env::current_exe()?)
            .arg("parse-worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let requests = child.stdin.take().expect("stdin is piped");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let (sender, answers) = channel();
        std::thread::spawn(move || while sender.send(read_frame(&mut stdout).ok()).is_ok() {});
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let last_words = std::thread::spawn(move || {
            let (mut words, mut buffer) = (String::new(), [0u8; 4096]);
            while let Ok(read @ 1..) = stderr.read(&mut buffer) {
                words.push_str(&String::from_utf8_lossy(&buffer[..read]));
                let excess = words.len().saturating_sub(4096);
                let cut = (excess..words.len()).find(|&i| words.is_char_boundary(i)).unwrap_or(0);
                words.drain(..cut);
            }
            words
        });
        Ok(Running { child, requests, answers, last_words: Some(last_words) })
    }

    /// The child's answer, or why there is none.
    fn wait_for_answer(&mut self) -> Result<Answer, NoAnswer> {
        let started = Instant::now();
        loop {
            match self.answers.recv_timeout(POLL) {
                Ok(Some(frame)) => return postcard::from_bytes(&frame).map_err(NoAnswer::Garbled),
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return Err(self.crash_reason()),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if started.elapsed() > Duration::from_secs(SECONDS_PER_FILE) {
                return Err(NoAnswer::TooSlow);
            }
            if resident_bytes(self.child.id()).is_some_and(|bytes| bytes > MEMORY_PER_FILE) {
                return Err(NoAnswer::PastMemory);
            }
        }
    }

    /// Why the child ended, from its exit status and its last words.
    fn crash_reason(&mut self) -> NoAnswer {
        let _ = self.child.kill();
        let status = self.child.wait().ok();
        // The child has exited, so its stderr is closed and the reader has its last words.
        let words = self.last_words.take().and_then(|reader| reader.join().ok()).unwrap_or_default();
        if words.contains("overflowed its stack") {
            NoAnswer::StackOverflow
        } else if words.contains("memory allocation of") {
            NoAnswer::OutOfMemory
        } else {
            NoAnswer::Crashed(status)
        }
    }
}

/// The child's side: answers each request on stdin until it closes.
pub fn serve() -> anyhow::Result<()> {
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = std::io::stdout().lock();
    while let Ok(frame) = read_frame(&mut input) {
        let (settings, path, bytes): Request = postcard::from_bytes(&frame)?;
        let answer: Answer = quire::corpus::parse_file(&SourceFile { path, bytes }, &settings);
        let frame = postcard::to_stdvec(&answer)?;
        write_frame(&mut output, &frame)?;
    }
    Ok(())
}

fn write_frame(to: &mut impl Write, frame: &[u8]) -> std::io::Result<()> {
    to.write_all(&(frame.len() as u64).to_le_bytes())?;
    to.write_all(frame)?;
    to.flush()
}

fn read_frame(from: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut length = [0u8; 8];
    from.read_exact(&mut length)?;
    let mut frame = Vec::new();
    from.take(u64::from_le_bytes(length)).read_to_end(&mut frame)?;
    Ok(frame)
}

/// The child's resident memory, where the system tells (Linux's `/proc`).
fn resident_bytes(pid: u32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page_size).ok()?)
}
