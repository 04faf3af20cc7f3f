// SPDX-License-Identifier: GPL-2.0-only
// Packet capture over the IPC, without a data plane: StartCapture checked field by field
// (target, direction, snap length) and kept to operators; the frames a backend's capture
// yields streamed to the client that started it, in order and in batches, with the
// counters; StopCapture ending the stream with a last batch; a closed connection stopping
// its captures.
#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>

#include "dispatcher.h"
#include "fastpath/ctrl/client.h"
#include "capture_backend.h"
#include "operator_session.h"
#include "server_harness.h"

namespace fastpath::ctrl {
namespace {

using testing::operatorSession;
using testing::ServerHarness;
using testing::CaptureBackend;
using testing::TableBackend;

CapturedFrame frame(uint32_t seq) {
  CapturedFrame f;
  f.time_ns = 1000000000ull * 1700000000ull + seq;
  f.orig_len = 100 + seq;
  f.port = 300;
  f.where = CaptureWhere::kTx;
  f.data = std::string(14, char(seq));
  return f;
}

class CaptureIpc : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b = std::make_unique<CaptureBackend>();
    backend_ = b.get();
    harness_ = std::make_unique<ServerHarness>(ServerOptions{}, std::move(b));
    ASSERT_TRUE(harness_->start().ok());
    auto c = Client::connect(harness_->socketPath());
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = std::move(c).value();
  }
  void queue(uint32_t from, uint32_t n, uint64_t dropped = 0) {
    harness_->onServer([&] {
      for (uint32_t i = 0; i < n; ++i) backend_->queued.push_back(frame(from + i));
      backend_->dropped = dropped;
      return 0;
    });
  }
  /// Batches until `frames` frames (or a done batch) arrived, 2 s at most.
  std::vector<CaptureBatch> receive(size_t frames) {
    std::vector<CaptureBatch> out;
    size_t got = 0;
    for (int i = 0; i < 40 && got < frames; ++i) {
      auto b = client_->nextCaptureBatch(50);
      EXPECT_TRUE(b.ok());
      if (!b.ok() || !b.value()) continue;
      got += b.value()->frames.size();
      out.push_back(std::move(*b.value()));
      if (out.back().done) break;
    }
    return out;
  }

  CaptureBackend* backend_ = nullptr;
  std::unique_ptr<ServerHarness> harness_;
  std::unique_ptr<Client> client_;
};

TEST_F(CaptureIpc, FramesAreStreamedInOrderInBatchesThenStopEndsWithALastBatch) {
  CaptureSpec spec;
  spec.target = "l1";
  spec.direction = LinkDirection::kAToB;
  spec.snaplen = 128;
  auto info = client_->startCapture(spec);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->snaplen, 128u);
  EXPECT_EQ(info->ports, (std::vector<PortId>{300, 301}));
  EXPECT_EQ(info->description, "link l1 (both)");
  EXPECT_EQ(harness_->onServer([&] { return backend_->last_spec.direction; }),
            LinkDirection::kAToB);
  queue(0, 600, 7);  // more than one batch
  auto batches = receive(600);
  ASSERT_GE(batches.size(), 3u) << "600 frames come in batches of at most 256";
  uint32_t seq = 0;
  for (const auto& b : batches) {
    EXPECT_EQ(b.capture_id, info->id);
    EXPECT_LE(b.frames.size(), 256u);
    EXPECT_FALSE(b.done);
    for (const auto& f : b.frames) {
      EXPECT_EQ(f.orig_len, 100 + seq);
      EXPECT_EQ(f.time_ns, frame(seq).time_ns);
      EXPECT_EQ(f.where, CaptureWhere::kTx);
      EXPECT_EQ(f.data, frame(seq).data);
      ++seq;
    }
  }
  EXPECT_EQ(seq, 600u);
  EXPECT_EQ(batches.back().dropped, 7u);
  ASSERT_TRUE(client_->stopCapture(info->id).ok());
  auto last = receive(1);
  ASSERT_FALSE(last.empty());
  EXPECT_TRUE(last.back().done);
  EXPECT_TRUE(harness_->onServer([&] { return backend_->stopped.count(info->id) == 1; }));
  // Stopped: the id is no capture of this connection any more.
  auto again = client_->stopCapture(info->id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, -ENOENT);
}

TEST_F(CaptureIpc, ACountEndsTheCaptureAndAClosedConnectionStopsItsCaptures) {
  CaptureSpec spec;
  spec.target = "l1";
  spec.count = 10;
  auto info = client_->startCapture(spec);
  ASSERT_TRUE(info.ok());
  queue(0, 10);
  auto batches = receive(10);
  ASSERT_FALSE(batches.empty());
  EXPECT_TRUE(batches.back().done) << "the count reached ends the capture";
  EXPECT_TRUE(harness_->onServer([&] { return backend_->stopped.count(info->id) == 1; }));

  spec.count = 0;
  auto second = client_->startCapture(spec);
  ASSERT_TRUE(second.ok());
  client_.reset();
  bool stopped = false;
  for (int i = 0; i < 100 && !stopped; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stopped = harness_->onServer([&] { return backend_->stopped.count(second->id) == 1; });
  }
  EXPECT_TRUE(stopped) << "the connection closed: its capture stops";
}

TEST_F(CaptureIpc, UnknownTargetIsNotFoundNamingTheField) {
  CaptureSpec spec;
  spec.target = "nosuch";
  auto r = client_->startCapture(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ENOENT);
  EXPECT_EQ(r.error().message, "start_capture.target: capture nosuch: no such link");
}

// The dispatcher alone: each field's rule, and who may capture.
class CaptureRequests : public ::testing::Test {
 protected:
  CaptureRequests() : dispatcher_(backend_, DispatchOptions{}) {}
  /// "CODE field" of the reply's error, "" when it succeeded.
  std::string send(Session& s, const v1::StartCapture& start) {
    v1::Request req;
    req.set_id(++id_);
    *req.mutable_start_capture() = start;
    auto out = dispatcher_.handle(s, req);
    if (!out.message.reply().has_error()) return "";
    const auto& e = out.message.reply().error();
    EXPECT_NE(e.message().find(e.field()), std::string::npos) << e.message();
    last_message_ = e.message();
    return v1::ErrorCode_Name(e.code()) + " " + e.field();
  }
  CaptureBackend backend_;
  Dispatcher dispatcher_;
  uint64_t id_ = 1;
  std::string last_message_;
};

TEST_F(CaptureRequests, EachFieldIsCheckedAndOnlyOperatorsMayCapture) {
  Session s = operatorSession(dispatcher_, false);
  ASSERT_TRUE(s.hello);
  v1::StartCapture ok;
  ok.set_target("l1");
  EXPECT_EQ(send(s, ok), "");
  EXPECT_EQ(backend_.last_spec.snaplen, kCaptureDefaultSnaplen) << "0 = the default";

  v1::StartCapture bad = ok;
  for (const char* t : {"", "a/b", "has space", "0123456789012345678901234567890123"}) {
    bad.set_target(t);
    EXPECT_EQ(send(s, bad), "INVALID_ARGUMENT start_capture.target") << t;
  }
  bad = ok;
  for (uint32_t len : {1u, 13u, 65536u}) {
    bad.set_snaplen(len);
    EXPECT_EQ(send(s, bad), "INVALID_ARGUMENT start_capture.snaplen") << len;
  }
  bad = ok;
  bad.set_direction(static_cast<v1::StartCapture::Direction>(7));
  EXPECT_EQ(send(s, bad), "INVALID_ARGUMENT start_capture.direction");

  Session peer = operatorSession(dispatcher_, false);
  peer.may_change_topology = false;  // let in by --socket-gid, not an operator
  EXPECT_EQ(send(peer, ok), "PERMISSION_DENIED start_capture");
  EXPECT_NE(last_message_.find("needs an operator"), std::string::npos) << last_message_;
  EXPECT_EQ(backend_.next_id, 1u) << "nothing started for the refused requests";
}

TEST(CaptureWithoutDataPlane, TheDefaultBackendRefusesWithAReason) {
  TableBackend backend;
  Dispatcher d(backend, DispatchOptions{});
  Session s = operatorSession(d, true);
  v1::Request req;
  req.set_id(2);
  req.mutable_start_capture()->set_target("eth0");
  auto out = d.handle(s, req);
  ASSERT_TRUE(out.message.reply().has_error());
  EXPECT_NE(out.message.reply().error().message().find("carries no frames"), std::string::npos);
}

}  // namespace
}  // namespace fastpath::ctrl
