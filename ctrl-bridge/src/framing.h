// SPDX-License-Identifier: GPL-2.0-only
// Length-delimited protobuf frames on a byte stream (a varint byte count, then the
// message), as written by google::protobuf::util::SerializeDelimitedToZeroCopyStream.
// Internal to ctrl-bridge (exposes protobuf types).
#pragma once

#include <google/protobuf/message_lite.h>

#include <cstddef>
#include <string>

#include "fastpath/result.h"

namespace fastpath::ctrl {

/// Appends one delimited frame for `msg` to `out`. Fails (-EMSGSIZE) when the message is
/// larger than `max_message_bytes`.
Status encodeFrame(const google::protobuf::MessageLite& msg, std::size_t max_message_bytes,
                   std::string* out);

/// Incremental decoder for a non-blocking stream: append() what was read, then call
/// next() until it stops returning kFrame.
class FrameDecoder {
 public:
  enum class State {
    kNeedMore,   ///< no complete frame buffered yet
    kFrame,      ///< `msg` holds the next message; the frame was consumed
    kTooLarge,   ///< the announced length exceeds the limit (stream unusable)
    kMalformed,  ///< bad length prefix or undecodable message (stream unusable)
  };

  explicit FrameDecoder(std::size_t max_message_bytes) : max_(max_message_bytes) {}

  void append(const char* data, std::size_t n);
  /// Space for a direct read() of up to `n` bytes; call commit() with what was read.
  char* prepare(std::size_t n);
  void commit(std::size_t n);

  State next(google::protobuf::MessageLite* msg);

  /// Bytes buffered but not yet consumed (non-zero at EOF = truncated frame).
  std::size_t buffered() const { return buf_.size() - pos_; }
  /// The length announced by the last kTooLarge frame.
  uint64_t lastAnnouncedLength() const { return last_len_; }
  std::size_t maxMessageBytes() const { return max_; }

 private:
  void compact();

  std::string buf_;
  std::size_t pos_ = 0;
  std::size_t committed_hint_ = 0;
  std::size_t max_;
  uint64_t last_len_ = 0;
};

}  // namespace fastpath::ctrl
