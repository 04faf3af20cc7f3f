// SPDX-License-Identifier: GPL-2.0-only
// Framing: length-delimited protobuf frames, limits, truncation and garbage.
#include <gtest/gtest.h>

#include "fastpath/v1/fastpath.pb.h"
#include "framing.h"

namespace fastpath::ctrl {
namespace {

namespace v1 = ::fastpath::v1;

v1::Request sampleRequest(uint64_t id, int routes) {
  v1::Request r;
  r.set_id(id);
  auto* b = r.mutable_apply_routes();
  for (int i = 0; i < routes; ++i) {
    auto* rt = b->add_add();
    rt->mutable_prefix()->mutable_address()->set_bytes(std::string("\xc6\x12\x00\x00", 4));
    rt->mutable_prefix()->set_length(24);
    rt->mutable_port()->set_id(i % 3);
    rt->set_metric(i);
  }
  return r;
}

TEST(Codec, RoundTripSeveralFramesFedByteByByte) {
  std::string wire;
  for (uint64_t id = 1; id <= 3; ++id)
    ASSERT_TRUE(encodeFrame(sampleRequest(id, static_cast<int>(id * 50)), 1 << 20, &wire));
  FrameDecoder dec(1 << 20);
  std::vector<uint64_t> ids;
  for (char ch : wire) {
    dec.append(&ch, 1);
    v1::Request r;
    while (true) {
      auto st = dec.next(&r);
      if (st == FrameDecoder::State::kNeedMore) break;
      ASSERT_EQ(st, FrameDecoder::State::kFrame);
      ids.push_back(r.id());
      EXPECT_EQ(r.apply_routes().add_size(), static_cast<int>(r.id() * 50));
    }
  }
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(dec.buffered(), 0u);
}

TEST(Codec, WholeBufferAtOnceViaPrepareCommit) {
  std::string wire;
  ASSERT_TRUE(encodeFrame(sampleRequest(7, 1000), 1 << 20, &wire));
  ASSERT_TRUE(encodeFrame(sampleRequest(8, 0), 1 << 20, &wire));
  FrameDecoder dec(1 << 20);
  char* p = dec.prepare(wire.size() + 100);
  memcpy(p, wire.data(), wire.size());
  dec.commit(wire.size());
  v1::Request r;
  ASSERT_EQ(dec.next(&r), FrameDecoder::State::kFrame);
  EXPECT_EQ(r.id(), 7u);
  ASSERT_EQ(dec.next(&r), FrameDecoder::State::kFrame);
  EXPECT_EQ(r.id(), 8u);
  EXPECT_EQ(dec.next(&r), FrameDecoder::State::kNeedMore);
}

TEST(Codec, EncodeRefusesOversizeMessage) {
  std::string wire;
  auto st = encodeFrame(sampleRequest(1, 1000), 100, &wire);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, -EMSGSIZE);
  EXPECT_NE(st.error().message.find("exceeds the limit of 100"), std::string::npos);
}

TEST(Codec, OversizeAnnouncedLengthIsTooLargeBeforeBodyArrives) {
  std::string wire;
  ASSERT_TRUE(encodeFrame(sampleRequest(1, 100), 1 << 20, &wire));
  FrameDecoder dec(64);
  dec.append(wire.data(), 3);  // only the length prefix and a byte
  v1::Request r;
  EXPECT_EQ(dec.next(&r), FrameDecoder::State::kTooLarge);
  EXPECT_GT(dec.lastAnnouncedLength(), 64u);
}

TEST(Codec, HugeVarintLengthIsTooLargeNotTruncated) {
  // 2^32 + 5: a decoder reading only 32 bits would see 5.
  const unsigned char huge[] = {0x85, 0x80, 0x80, 0x80, 0x10, 1, 2, 3, 4, 5};
  FrameDecoder dec(1 << 20);
  dec.append(reinterpret_cast<const char*>(huge), sizeof(huge));
  v1::Request r;
  EXPECT_EQ(dec.next(&r), FrameDecoder::State::kTooLarge);
}

TEST(Codec, EndlessVarintIsMalformed) {
  std::string garbage(12, '\xff');
  FrameDecoder dec(1 << 20);
  dec.append(garbage.data(), 9);
  v1::Request r;
  EXPECT_EQ(dec.next(&r), FrameDecoder::State::kNeedMore);  // could still be a prefix
  dec.append(garbage.data() + 9, 3);
  EXPECT_EQ(dec.next(&r), FrameDecoder::State::kMalformed);
}

TEST(Codec, UndecodableBodyIsMalformed) {
  // Length 4, body: field 1 with wire type 7 (invalid).
  const unsigned char bad[] = {4, 0x0f, 0x01, 0x02, 0x03};
  FrameDecoder dec(1 << 20);
  dec.append(reinterpret_cast<const char*>(bad), sizeof(bad));
  v1::Request r;
  EXPECT_EQ(dec.next(&r), FrameDecoder::State::kMalformed);
}

TEST(Codec, TruncatedFrameWaitsAndReportsBufferedBytes) {
  std::string wire;
  ASSERT_TRUE(encodeFrame(sampleRequest(1, 10), 1 << 20, &wire));
  FrameDecoder dec(1 << 20);
  dec.append(wire.data(), wire.size() - 1);
  v1::Request r;
  EXPECT_EQ(dec.next(&r), FrameDecoder::State::kNeedMore);
  EXPECT_EQ(dec.buffered(), wire.size() - 1);  // non-zero at EOF = truncated
}

TEST(Codec, EmptyMessageIsAValidFrame) {
  std::string wire;
  ASSERT_TRUE(encodeFrame(v1::Request(), 1 << 20, &wire));
  EXPECT_EQ(wire.size(), 1u);
  FrameDecoder dec(1 << 20);
  dec.append(wire.data(), wire.size());
  v1::Request r;
  EXPECT_EQ(dec.next(&r), FrameDecoder::State::kFrame);
  EXPECT_EQ(r.body_case(), v1::Request::BODY_NOT_SET);
}

}  // namespace
}  // namespace fastpath::ctrl
