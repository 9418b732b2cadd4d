import Glibc

/// The calling thread's last error message, for `cadence_last_error_message`: a C string that
/// `malloc` made, kept under a pthread key whose destructor frees it when the thread ends. Only
/// failing calls write it (as `errno`), so a successful call costs nothing here.
enum LastError {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    private static let empty = PermanentCString("")

    /// Replaces this thread's message (the previous one is freed: its pointer dies here).
    static func set(_ message: String) {
        let previous = pthread_getspecific(key)
        // strdup failing leaves no message, which reads as "".
        pthread_setspecific(key, message.withCString { strdup($0) })
        free(previous)
    }

    /// This thread's message; "" before any call has failed on it.
    static var message: UnsafePointer<CChar> {
        guard let stored = pthread_getspecific(key) else { return empty.pointer }
        return UnsafePointer(stored.assumingMemoryBound(to: CChar.self))
    }
}
