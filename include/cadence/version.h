/* Cadence version macros. cadence_version() reports the version of the library actually loaded. */
#ifndef CADENCE_VERSION_H
#define CADENCE_VERSION_H

#define CADENCE_VERSION_MAJOR 0
#define CADENCE_VERSION_MINOR 4
#define CADENCE_VERSION_PATCH 0
/* (major << 16) | (minor << 8) | patch, as cadence_version() returns it. */
#define CADENCE_VERSION_HEX \
    ((CADENCE_VERSION_MAJOR << 16) | (CADENCE_VERSION_MINOR << 8) | CADENCE_VERSION_PATCH)

#endif /* CADENCE_VERSION_H */
