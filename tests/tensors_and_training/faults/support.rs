//! Catching a panic with its message and the location it was reported at; temporary files.

use std::cell::{Cell, RefCell};
use std::ops::Deref;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

/// A panic's message and the file and line it was reported at.
#[derive(Debug)]
pub struct Caught {
    pub message: String,
    pub file: String,
    pub line: u32,
}

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<Caught>> = const { RefCell::new(None) };
}

/// Installs, once, a panic hook that records the panics of threads inside [`panic_of`] and hands
/// every other panic to the default hook (so failing tests still print theirs).
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CAPTURING.with(Cell::get) {
                return default(info);
            }
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let (file, line) = info
                .location()
                .map_or((String::new(), 0), |l| (l.file().to_string(), l.line()));
            LAST.with(|l| {
                *l.borrow_mut() = Some(Caught {
                    message,
                    file,
                    line,
                })
            });
        }));
    });
}

/// Runs `f`, which must panic, and returns what the panic said and where.
pub fn panic_of<R>(f: impl FnOnce() -> R) -> Caught {
    install_hook();
    CAPTURING.with(|c| c.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURING.with(|c| c.set(false));
    assert!(result.is_err(), "expected a panic");
    LAST.with(|l| l.borrow_mut().take())
        .expect("the hook recorded the panic")
}

/// Asserts that `message` contains each of `words`.
#[track_caller]
pub fn says(message: &str, words: &[&str]) {
    for word in words {
        assert!(message.contains(word), "{message:?} does not say {word:?}");
    }
}

/// Evaluates `$e`, which must panic with a message containing each of the `$word`s, reported in
/// this file within the lines of this invocation (`line!()` is its first line, and rustfmt may put
/// `$e` on the next few): at the caller, by `#[track_caller]` through every layer of the library.
/// Returns the message.
macro_rules! panics_here {
    ($e:expr, $($word:expr),+ $(,)?) => {{
        let caught = $crate::faults::support::panic_of(|| $e);
        let first = line!();
        assert!(
            caught.file == file!() && (first..first + 4).contains(&caught.line),
            "{:?} is reported at {}:{}, not at the caller, {}:{first}",
            caught.message,
            caught.file,
            caught.line,
            file!(),
        );
        $crate::faults::support::says(&caught.message, &[$($word),+]);
        caught.message
    }};
}

/// A file in the system's temporary directory, removed when dropped.
pub struct TempFile(PathBuf);

impl Deref for TempFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempFile {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A fresh path in the temporary directory (nothing written yet), unique to this process and call.
pub fn temp_path(extension: &str) -> TempFile {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = format!("diffx-faults-{}-{n}.{extension}", std::process::id());
    TempFile(std::env::temp_dir().join(name))
}

/// A temporary file holding `bytes`.
pub fn file(bytes: &[u8]) -> TempFile {
    let path = temp_path("csv");
    std::fs::write(&path, bytes).unwrap();
    path
}
