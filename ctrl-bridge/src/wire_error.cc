// SPDX-License-Identifier: GPL-2.0-only
#include "wire_error.h"

#include <cerrno>

namespace fastpath::ctrl {

int errnoForCode(v1::ErrorCode code) {
  switch (code) {
    case v1::OK: return 0;
    case v1::INVALID_ARGUMENT: return -EINVAL;
    case v1::NOT_FOUND: return -ENOENT;
    case v1::VERSION_MISMATCH: return -EPROTONOSUPPORT;
    case v1::FAILED_PRECONDITION: return -EBADE;
    case v1::PERMISSION_DENIED: return -EACCES;
    case v1::MESSAGE_TOO_LARGE: return -EMSGSIZE;
    case v1::MALFORMED: return -EBADMSG;
    case v1::ABORTED: return -ECANCELED;
    case v1::RESOURCE_EXHAUSTED: return -ENOSPC;
    case v1::UNIMPLEMENTED: return -ENOSYS;
    case v1::INTERNAL:
    default: return -EIO;
  }
}

v1::ErrorCode codeForErrno(int e) {
  switch (e) {
    case 0: return v1::OK;
    case -EINVAL:
    case -EEXIST: return v1::INVALID_ARGUMENT;
    case -ENOENT:
    case -ENODEV:
    case -ESRCH: return v1::NOT_FOUND;
    case -EPROTONOSUPPORT: return v1::VERSION_MISMATCH;
    case -EBADE:
    case -EBUSY:
    case -ENOTEMPTY: return v1::FAILED_PRECONDITION;  // e.g. a node that still has ports
    case -EACCES:
    case -EPERM: return v1::PERMISSION_DENIED;
    case -EMSGSIZE: return v1::MESSAGE_TOO_LARGE;
    case -EBADMSG: return v1::MALFORMED;
    case -ECANCELED: return v1::ABORTED;
    case -ENOSPC:
    case -E2BIG:
    case -ENOMEM: return v1::RESOURCE_EXHAUSTED;
    case -ENOSYS:
    case -EOPNOTSUPP: return v1::UNIMPLEMENTED;
    default: return v1::INTERNAL;
  }
}

}  // namespace fastpath::ctrl
