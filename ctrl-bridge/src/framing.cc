// SPDX-License-Identifier: GPL-2.0-only
#include "framing.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <cerrno>

namespace fastpath::ctrl {

namespace pio = google::protobuf::io;

Status encodeFrame(const google::protobuf::MessageLite& msg, std::size_t max_message_bytes,
                   std::string* out) {
  std::size_t size = msg.ByteSizeLong();
  if (size > max_message_bytes)
    return makeError(-EMSGSIZE, "message of " + std::to_string(size) +
                                    " bytes exceeds the limit of " +
                                    std::to_string(max_message_bytes) +
                                    " bytes; split it (chunked batch, paged listing)");
  pio::StringOutputStream stream(out);
  if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(msg, &stream))
    return makeError(-EINVAL, "cannot serialise message (missing required data?)");
  return {};
}

void FrameDecoder::append(const char* data, std::size_t n) {
  compact();
  buf_.append(data, n);
}

char* FrameDecoder::prepare(std::size_t n) {
  compact();
  std::size_t old = buf_.size();
  buf_.resize(old + n);
  committed_hint_ = old;
  return buf_.data() + old;
}

void FrameDecoder::commit(std::size_t n) { buf_.resize(committed_hint_ + n); }

void FrameDecoder::compact() {
  if (pos_ == 0) return;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > buf_.size() / 2 || pos_ > (1u << 20)) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
}

FrameDecoder::State FrameDecoder::next(google::protobuf::MessageLite* msg) {
  std::size_t avail = buf_.size() - pos_;
  if (avail == 0) return State::kNeedMore;
  const auto* data = reinterpret_cast<const uint8_t*>(buf_.data() + pos_);

  // Length prefix: read it with protobuf's own varint reader. A prefix that does not end
  // within the bytes we have is either incomplete (< 10 bytes) or corrupt (>= 10).
  uint64_t len = 0;
  int header = 0;
  {
    pio::CodedInputStream in(data, static_cast<int>(std::min<std::size_t>(avail, 10)));
    if (!in.ReadVarint64(&len)) return avail >= 10 ? State::kMalformed : State::kNeedMore;
    header = in.CurrentPosition();
  }
  if (len > max_) {
    last_len_ = len;
    return State::kTooLarge;
  }
  if (avail < header + len) return State::kNeedMore;

  pio::ArrayInputStream frame(data, static_cast<int>(header + len));
  bool clean_eof = false;
  bool ok = google::protobuf::util::ParseDelimitedFromZeroCopyStream(msg, &frame, &clean_eof);
  pos_ += header + len;
  return ok ? State::kFrame : State::kMalformed;
}

}  // namespace fastpath::ctrl
