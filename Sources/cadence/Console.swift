import Glibc

/// Output to the standard streams, written straight to the file descriptors.
///
/// Nothing is buffered, so a countdown redraw or a tick line appears at once and the order of
/// stdout and stderr is the order of the calls.
enum Console {
    /// Writes `text` to standard output.
    static func out(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Writes `text` to standard error.
    static func err(_ text: String) { write(text, to: STDERR_FILENO) }

    /// Whether standard output is a terminal (so a line may be redrawn with `\r`).
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Whether standard error is a terminal (so progress may be shown there).
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
