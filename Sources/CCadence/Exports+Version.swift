import Cadence
import CCadenceHeader

/// The engine's version; the C tests check it against the header's macros.
private let versionString = PermanentCString(cadenceVersion)

@c @implementation
public func cadence_version() -> CUnsignedInt {
    CUnsignedInt(CADENCE_VERSION_MAJOR << 16 | CADENCE_VERSION_MINOR << 8 | CADENCE_VERSION_PATCH)
}

@c @implementation
public func cadence_version_string() -> UnsafePointer<CChar> { versionString.pointer }

@c @implementation
public func cadence_strerror(_ err: Int32) -> UnsafePointer<CChar> {
    (ErrorStrings.byCode[err]?.message ?? ErrorStrings.unknownMessage).pointer
}

@c @implementation
public func cadence_err_name(_ err: Int32) -> UnsafePointer<CChar> {
    (ErrorStrings.byCode[err]?.name ?? ErrorStrings.unknownName).pointer
}

@c @implementation
public func cadence_last_error_message() -> UnsafePointer<CChar> { LastError.message }
