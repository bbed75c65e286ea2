//! Opening an input file (a trace, a file of sector ranges) so that reading it can always be
//! stopped. A pipe or a terminal may have nothing to read for as long as its writer likes;
//! a plain blocking read would then hold the run past Ctrl-C. The file stays non-blocking,
//! and a read with nothing to read waits for data at most [`interrupt::INTERVAL`] at a
//! time, asking [`interrupt::stopping`] between waits.

use std::fs::File;
use std::io::Read;
use std::os::unix::io::AsRawFd;

use crate::error::{Error, Result};
use crate::interrupt;

/// An input file whose reads wait for data in slices, stopping when the run must.
pub struct Input {
    file: File,
}

/// Opens an input (a trace, or another file of lines; `what` names it in messages) for
/// reading: a regular file, a pipe or a character device; anything else (a directory, a
/// block device, a socket) is refused. The open does not block: a named pipe that no
/// process writes to reads as empty instead of waiting for a writer forever (a writer that
/// opened it first is read as usual, however slowly it writes).
pub fn open_input(path: &str, what: &str) -> Result<Input> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};

    let io = |e: std::io::Error| Error::Io { path: path.to_string(), message: format!("cannot open {what}: {e}") };
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(io)?;
    let kind = file.metadata().map_err(io)?.file_type();
    let refuse = |kind: &str| Error::Io {
        path: path.to_string(),
        message: format!("cannot read {what} from {kind}; expected a regular file, a pipe or a character device"),
    };
    if kind.is_dir() {
        return Err(refuse("a directory"));
    }
    if kind.is_block_device() {
        return Err(refuse("a block device"));
    }
    if !(kind.is_file() || kind.is_fifo() || kind.is_char_device()) {
        return Err(refuse("this kind of file"));
    }
    Ok(Input { file })
}

impl Input {
    /// Waits until the file has data (or its writer went away), at most one interval; an
    /// error when the run must stop. Out of line: reads that find data never come here.
    #[cold]
    #[inline(never)]
    fn wait(&self) -> std::io::Result<()> {
        let mut fd = libc::pollfd { fd: self.file.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let timeout_ms = interrupt::INTERVAL.as_millis() as libc::c_int;
        // SAFETY: poll on one descriptor this value owns, through a pointer to a local.
        if unsafe { libc::poll(&mut fd, 1, timeout_ms) } < 0 {
            let e = std::io::Error::last_os_error();
            // A signal cut the wait short: the check below decides.
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        if interrupt::stopping() {
            return Err(interrupt::io_error());
        }
        Ok(())
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.file.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => self.wait()?,
                done => return done,
            }
        }
    }
}

/// The error of a failed read of `path`: [`Error::Interrupted`] when the read gave up
/// because the run must stop, otherwise an [`Error::Io`] saying `context` and the reason.
pub fn read_error(path: &str, context: &str, e: &std::io::Error) -> Error {
    interrupt::from_io(e).unwrap_or_else(|| Error::Io { path: path.to_string(), message: format!("{context}: {e}") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    use std::time::{Duration, Instant};

    fn fifo(name: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("xlssd-input-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        path
    }

    #[test]
    fn a_read_from_a_silent_writer_stops_when_the_run_must() {
        let path = fifo("silent");
        // A writer that opened the pipe and writes nothing (read-write, so that the open
        // does not wait for a reader).
        let writer = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        let mut input = open_input(path.to_str().unwrap(), "trace").unwrap();
        let asked = Instant::now();
        let _check = interrupt::install(Box::new(move || asked.elapsed() > Duration::from_millis(200)));
        let mut buf = [0u8; 16];
        let e = input.read(&mut buf).unwrap_err();
        assert!(matches!(read_error("p", "read failed", &e), Error::Interrupted), "{e}");
        let waited = asked.elapsed();
        assert!(waited >= Duration::from_millis(200) && waited < Duration::from_secs(2), "{waited:?}");
        drop(writer);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn data_that_comes_late_is_read() {
        let path = fifo("late");
        let mut writer = std::fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_NONBLOCK).open(&path).unwrap();
        let mut input = open_input(path.to_str().unwrap(), "trace").unwrap();
        let late = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            writer.write_all(b"1 0 0 8 0\n").unwrap();
        });
        let mut buf = [0u8; 64];
        assert_eq!(input.read(&mut buf).unwrap(), 10);
        late.join().unwrap();
        let _ = std::fs::remove_file(&path);
    }
}
