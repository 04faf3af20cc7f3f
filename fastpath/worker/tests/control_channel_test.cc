// SPDX-License-Identifier: GPL-2.0-only
// The control-frame channel between fastpathd and its client (ns-3): frames reach the
// attached client whole, and a client that attaches after another one left starts clean.
#include "worker/control_channel.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace fastpath {
namespace {

// What a worker does: one frame per message on fastpathd's end.
void sendFrame(const ControlChannel& ch, uint8_t tag) {
  uint8_t frame[60] = {};
  frame[0] = tag;
  ASSERT_EQ(send(ch.daemonFd(), frame, sizeof(frame), MSG_DONTWAIT), ssize_t(sizeof(frame)));
}

// The first byte of the next frame on `fd`, or -1 when none is queued.
int nextTag(int fd) {
  uint8_t buf[kControlFrameMax];
  ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
  return n > 0 ? buf[0] : -1;
}

TEST(ControlChannel, FramesQueuedForAClientThatLeftAreDiscardedAndCountedAtTheNextAttach) {
  auto ch = ControlChannel::create(0, "fp0");
  ASSERT_TRUE(ch.ok()) << ch.error().message;
  ControlChannel& c = **ch;
  EXPECT_FALSE(c.attached());

  auto first = c.clientFd();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(c.attached());
  sendFrame(c, 1);
  EXPECT_EQ(nextTag(*first), 1);
  EXPECT_EQ(c.drop_stale_at_attach.load(), 0u);

  // The first client goes away with three frames unread.
  for (uint8_t t = 2; t <= 4; ++t) sendFrame(c, t);
  close(*first);

  auto second = c.clientFd();
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(c.drop_stale_at_attach.load(), 3u);
  EXPECT_EQ(nextTag(*second), -1) << "a new client must not read an earlier client's frames";
  sendFrame(c, 5);
  EXPECT_EQ(nextTag(*second), 5);
  close(*second);
}

TEST(ControlChannel, AttachedOnlyWhileAClientHoldsIt) {
  auto ch = ControlChannel::create(1, "fp1");
  ASSERT_TRUE(ch.ok()) << ch.error().message;
  EXPECT_FALSE((*ch)->attached()) << "no client yet: workers count drops";
  auto fd = (*ch)->clientFd();
  ASSERT_TRUE(fd.ok());
  EXPECT_TRUE((*ch)->attached());
  close(*fd);
  (*ch)->detach();  // the control connection that opened it is gone
  EXPECT_FALSE((*ch)->attached()) << "nobody reads: frames are drops, not a filling buffer";
  auto again = (*ch)->clientFd();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE((*ch)->attached());
  close(*again);
}

}  // namespace
}  // namespace fastpath
