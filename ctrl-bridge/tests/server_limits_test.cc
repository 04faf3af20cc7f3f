// SPDX-License-Identifier: GPL-2.0-only
// The server against hostile but permitted peers: it bounds what each client may hold
// (descriptors, queued events, connections, time without Hello or progress) so that no
// client exhausts the daemon or locks the operators out; and its access options do what
// they say for real unprivileged users.
#include <arpa/inet.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "server_harness.h"
#include "wire_client.h"

namespace fastpath::ctrl {
namespace {

using testing::ServerHarness;
using namespace testing::wire;

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

ServerCounters countersOf(ServerHarness& h) {
  return h.onServer([&] { return h.server().counters(); });
}

/// Resident memory of this process (the server runs in it), in KiB.
long rssKiB() {
  std::ifstream f("/proc/self/status");
  std::string k;
  long v = 0;
  while (f >> k)
    if (k == "VmRSS:" && f >> v) return v;
  return -1;
}

int openFds() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

TEST(ServerLimits, ConnectionWithoutHelloIsClosed) {
  ServerOptions o;
  o.hello_timeout_ms = 200;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  int s = rawConnect(h.socketPath());
  ASSERT_GE(s, 0);
  bool eof = false;
  auto msgs = readUntilEof(s, &eof);
  EXPECT_TRUE(eof) << "an idle connection without Hello must be closed";
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].reply().error().code(), v1::FAILED_PRECONDITION);
  EXPECT_EQ(countersOf(h).closed_no_hello, 1u);
  ::close(s);
  // A client that says Hello in time is unaffected.
  auto c = connectOk(h);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_TRUE(c->ports());
}

TEST(ServerLimits, UnfinishedFrameWithoutProgressIsClosed) {
  ServerOptions o;
  o.frame_stall_timeout_ms = 200;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  int s = rawConnect(h.socketPath());
  ASSERT_GE(s, 0);
  sendHello(s);
  // A frame announcing 1 MiB (varint length), then 3 bytes of it, then nothing.
  const char partial[] = {char(0x80), char(0x80), char(0x40), 1, 2, 3};
  ASSERT_EQ(::send(s, partial, sizeof(partial), MSG_NOSIGNAL), ssize_t(sizeof(partial)));
  bool eof = false;
  auto msgs = readUntilEof(s, &eof);
  EXPECT_TRUE(eof);
  ASSERT_GE(msgs.size(), 2u);  // the Hello reply, then the error
  EXPECT_EQ(msgs.back().reply().error().code(), v1::MALFORMED);
  EXPECT_EQ(countersOf(h).closed_stalled, 1u);
  ::close(s);
}

TEST(ServerLimits, QueuedControlChannelDescriptorsAreBounded) {
  ServerOptions o;
  o.max_queued_fds_per_client = 8;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  auto first = connectOk(h);  // opens the channel once, so its daemon end exists
  ASSERT_TRUE(first->openControlChannel(0));
  const int fds_before = openFds();
  int s = rawConnect(h.socketPath());
  ASSERT_GE(s, 0);
  int small = 4096;
  ::setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  sendHello(s);
  // 2,000 requests in one write, and never a byte read.
  std::string burst;
  for (int i = 0; i < 2000; ++i) {
    v1::Request r;
    r.set_id(10 + i);
    r.mutable_open_control_channel()->mutable_port()->set_id(0);
    std::string w;
    ASSERT_TRUE(encodeFrame(r, 1 << 20, &w));
    burst += w;
  }
  ASSERT_EQ(::send(s, burst.data(), burst.size(), MSG_NOSIGNAL), ssize_t(burst.size()));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  // Requests handled: two Hellos, one channel opened, then the 2,000 (refused ones never
  // reach the dispatcher).
  auto handled = [&] {
    ServerCounters k = countersOf(h);
    return k.requests + k.refused_fds;
  };
  while (std::chrono::steady_clock::now() < deadline && handled() < 2003)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ServerCounters c = countersOf(h);
  // Beyond the bound requests are refused. Some replies fit into the socket buffers before
  // they filled: their descriptors are in flight, held by the kernel, not by the daemon.
  EXPECT_GT(c.refused_fds, 1000u);
  // The daemon holds at most the bound of duplicated descriptors for this client (plus
  // the connection itself), not one per request.
  EXPECT_LE(openFds() - fds_before, 8 + 1 + 2);
  // Reading the replies hands the descriptors over; the client can then ask again.
  bool eof = false;
  ::shutdown(s, SHUT_WR);
  auto msgs = readUntilEof(s, &eof);
  size_t refused = 0;
  for (const auto& m : msgs) refused += m.reply().error().code() == v1::RESOURCE_EXHAUSTED;
  EXPECT_EQ(refused, c.refused_fds);
  ::close(s);
  EXPECT_TRUE(first->openControlChannel(0)) << "the others are not affected";
}

TEST(ServerLimits, EventsForAClientThatStopsReadingAreDroppedCountedAndReported) {
  ServerOptions o;
  o.max_event_queue_bytes = 64 << 10;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  ClientOptions co;
  co.node_name = "slow";
  auto slow = connectOk(h, co);
  ASSERT_TRUE(slow->subscribe());
  const long rss_before = rssKiB();
  constexpr uint64_t kEvents = 400000;
  h.onServer([&] {
    FastPathEvent e;
    e.kind = FastPathEvent::Kind::kRouteMiss;
    e.port = 1;
    for (uint64_t i = 0; i < kEvents; ++i) {
      e.address = IpAddress::v4(htonl(0xc6120000u + uint32_t(i)));
      h.backend().emit(e);
    }
    return 0;
  });
  const long rss_after = rssKiB();
  ServerCounters c = countersOf(h);
  EXPECT_GT(c.events_dropped, 0u);
  EXPECT_EQ(c.events_sent + c.events_dropped, kEvents);
  // 400k queued events would take tens of MiB; bounded, the queue stays at its limit.
  EXPECT_LT(rss_after - rss_before, 16 * 1024) << "KiB";
  EXPECT_EQ(c.send_queue_overflows, 0u) << "dropping events does not disconnect";
  // The client reads what was queued, then one marker with the number it missed.
  uint64_t got = 0, dropped = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (dropped == 0 && std::chrono::steady_clock::now() < deadline) {
    auto e = slow->nextEvent(500);
    ASSERT_TRUE(e) << e.error().message;
    if (!e.value()) continue;
    if (e.value()->kind == FastPathEvent::Kind::kEventsDropped)
      dropped = e.value()->dropped;
    else
      ++got;
  }
  EXPECT_EQ(dropped, c.events_dropped);
  EXPECT_EQ(got, c.events_sent);
}

TEST(ServerLimits, OpenTransactionsOfAllClientsAreBoundedTogether) {
  ServerOptions o;
  o.max_pending_routes = 1000;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  // Two clients each open a transaction with a 600-route chunk and never finish it.
  auto chunk = [](int s, uint64_t txn, int base) {
    v1::Request r;
    r.set_id(100 + base);
    auto* b = r.mutable_apply_routes();
    b->set_transaction_id(txn);
    b->set_chunk_index(0);
    for (int i = 0; i < 600; ++i) {
      auto* rt = b->add_add();
      rt->mutable_prefix()->mutable_address()->set_bytes(
          std::string{char(198), char(18), char((base + i) >> 8), char(base + i)});
      rt->mutable_prefix()->set_length(32);
      rt->mutable_port()->set_id(1);
    }
    sendFrame(s, r);
  };
  int a = rawConnect(h.socketPath()), b = rawConnect(h.socketPath());
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  sendHello(a);
  sendHello(b);
  chunk(a, 1, 0);
  chunk(b, 2, 1000);  // 600 + 600 > 1000: aborted
  ::shutdown(b, SHUT_WR);
  bool eof = false;
  auto msgs = readUntilEof(b, &eof);
  ASSERT_EQ(msgs.size(), 2u);  // Hello, then the refusal
  EXPECT_EQ(msgs[1].reply().error().code(), v1::ABORTED);
  EXPECT_NE(msgs[1].reply().error().message().find("limit 1000"), std::string::npos)
      << msgs[1].reply().error().message();
  // When the first client leaves, its routes no longer count.
  ::close(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  int c2 = rawConnect(h.socketPath());
  sendHello(c2);
  chunk(c2, 3, 2000);
  v1::Request fin;
  fin.set_id(9);
  fin.mutable_apply_routes()->set_transaction_id(3);
  fin.mutable_apply_routes()->set_chunk_index(1);
  fin.mutable_apply_routes()->set_final_chunk(true);
  sendFrame(c2, fin);
  ::shutdown(c2, SHUT_WR);
  msgs = readUntilEof(c2, &eof);
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_FALSE(msgs[2].reply().has_error()) << msgs[2].reply().error().message();
  ::close(b);
  ::close(c2);
}

// Runs `f` in a child process with the given credentials; returns its exit status.
template <typename F>
int asUser(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, F f) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0)
      _exit(100);
    _exit(f());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

// As that user: 0 if a client connects and lists the ports.
int servedAs(const std::string& socket, uid_t uid, gid_t gid, const std::vector<gid_t>& groups) {
  return asUser(uid, gid, groups, [&] {
    auto c = Client::connect(socket, {});
    return c && c.value()->ports() ? 0 : 1;
  });
}

// As that user: 0 if the socket file itself refuses the connection (EACCES).
int refusedAs(const std::string& socket, uid_t uid, gid_t gid) {
  return asUser(uid, gid, {}, [&] {
    auto c = Client::connect(socket, {});
    return !c && c.error().code == -EACCES ? 0 : 1;
  });
}

/// Opens up to n connections as this process and keeps them; "y" per accepted one, "n" per
/// refusal for a limit (ENOSPC), "?" otherwise.
std::string openMany(const std::string& path, int n,
                     std::vector<std::unique_ptr<Client>>* held) {
  std::string result;
  for (int i = 0; i < n; ++i) {
    auto c = Client::connect(path, {});
    result += c ? 'y' : (c.error().code == -ENOSPC ? 'n' : '?');
    if (c) held->push_back(std::move(c).value());
  }
  return result;
}

/// A child process as uid/gid (no supplementary groups) that opens n connections
/// (openMany) and holds them until release(): one peer's process filling the server's slots.
class HoldingChild {
 public:
  HoldingChild(const std::string& path, uid_t uid, gid_t gid, int n) : n_(n) {
    if (::pipe(to_child_) != 0 || ::pipe(from_child_) != 0) return;
    pid_ = ::fork();
    if (pid_ != 0) return;
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) _exit(100);
    std::vector<std::unique_ptr<Client>> held;
    std::string r = openMany(path, n, &held);
    (void)!::write(from_child_[1], r.data(), r.size());
    char done;
    (void)!::read(to_child_[0], &done, 1);  // hold them until the parent has checked
    _exit(0);
  }
  /// openMany's answer, one character per connection; "" when the child said less.
  std::string result() {
    std::string r(n_, '-');
    if (pid_ <= 0 || ::read(from_child_[0], r.data(), n_) != n_) return "";
    return r;
  }
  /// The child closes its connections and is gone.
  void release() {
    if (pid_ <= 0) return;
    (void)!::write(to_child_[1], "x", 1);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  ~HoldingChild() {
    release();
    for (int fd : {to_child_[0], to_child_[1], from_child_[0], from_child_[1]})
      if (fd >= 0) ::close(fd);
  }

 private:
  int n_;
  pid_t pid_ = -1;
  int to_child_[2] = {-1, -1}, from_child_[2] = {-1, -1};
};

/// A socket anyone may open: the group nogroup may talk (peers that are no operators),
/// uid kNobody - 1 is the operator, and the server's own uid is no operator of itself.
ServerOptions peersAndAnOperator() {
  ServerOptions o;
  o.socket_mode = 0666;
  o.allow_same_uid = false;
  o.allowed_gids = {kNogroup};     // nobody may talk, but is not an operator
  o.allowed_uids = {kNobody - 1};  // the operator
  return o;
}

TEST(ServerLimits, OtherPeersCannotLockOutRootOrTheOperator) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as several users";
  ServerOptions o = peersAndAnOperator();
  o.max_clients = 4;
  o.reserved_clients = 2;
  o.max_clients_per_uid = 2;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  // nobody opens connections and keeps them: the third is refused (per uid).
  HoldingChild nobody(h.socketPath(), kNobody, kNogroup, 3);
  ASSERT_EQ(nobody.result(), "yyn") << "y = accepted, n = refused (limit per uid)";
  // Two more connections fill max_clients: another user in the allowed group.
  EXPECT_EQ(asUser(kNobody - 2, kNogroup, {},
                   [&] {
                     auto a = Client::connect(h.socketPath(), {});
                     auto b = Client::connect(h.socketPath(), {});
                     auto c = Client::connect(h.socketPath(), {});  // over max_clients: refused
                     return (a && b && !c) ? 0 : 1;
                   }),
            0);
  // The others' connections are gone with that child, nobody still holds two: fill up.
  auto filler = Client::connect(h.socketPath(), {});  // root
  ASSERT_TRUE(filler);
  auto filler2 = Client::connect(h.socketPath(), {});
  ASSERT_TRUE(filler2);
  // Full for ordinary peers, but the operator and root still get in.
  EXPECT_EQ(asUser(kNobody - 2, kNogroup, {},
                   [&] { return Client::connect(h.socketPath(), {}) ? 1 : 0; }),
            0)
      << "an ordinary peer is refused when max_clients is reached";
  EXPECT_EQ(asUser(kNobody - 1, kNobody - 1, {},
                   [&] { return Client::connect(h.socketPath(), {}) ? 0 : 1; }),
            0)
      << "the operator uses a reserved slot";
  EXPECT_TRUE(Client::connect(h.socketPath(), {})) << "root uses a reserved slot";
  nobody.release();
  EXPECT_GE(countersOf(h).refused_too_many, 3u);
}

TEST(ServerLimits, AnOperatorsProcessMayHoldManyConnectionsOthersStayBounded) {
  // An ns-3 script attaching 64 nodes holds 65 connections from one process: operators
  // (here an allowed uid) get max_clients_per_operator_pid per process and operator_clients
  // beyond max_clients + reserved_clients; other peers keep max_clients_per_pid and
  // max_clients.
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as several users";
  ServerOptions o = peersAndAnOperator();
  o.max_clients = 16;
  o.reserved_clients = 2;
  o.operator_clients = 14;  // 32 connections in all for operators
  o.max_clients_per_uid = 32;
  o.max_clients_per_pid = 8;
  o.max_clients_per_operator_pid = 24;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  // Another peer: 8 per process, as before.
  EXPECT_EQ(asUser(kNobody, kNogroup, {},
                   [&] {
                     std::vector<std::unique_ptr<Client>> held;
                     return openMany(h.socketPath(), 9, &held) == "yyyyyyyyn" ? 0 : 1;
                   }),
            0)
      << "a peer that is no operator has at most 8 connections per process";
  // The operator's process: 24, over max_clients_per_pid and max_clients; held.
  HoldingChild op(h.socketPath(), kNobody - 1, kNobody - 1, 25);
  ASSERT_EQ(op.result(), std::string(24, 'y') + "n")
      << "y = accepted, n = refused (max_clients_per_operator_pid)";
  // 24 connections held: the other peer is refused (over max_clients), another process of
  // the operator gets the 8 left of the 32 (16 + 2 + 14), root too no more.
  EXPECT_EQ(asUser(kNobody, kNogroup, {},
                   [&] { return Client::connect(h.socketPath(), {}) ? 1 : 0; }),
            0)
      << "other peers are refused while operators hold more than max_clients";
  EXPECT_EQ(asUser(kNobody - 1, kNobody - 1, {},
                   [&] {
                     std::vector<std::unique_ptr<Client>> held;
                     return openMany(h.socketPath(), 9, &held) == "yyyyyyyyn" ? 0 : 1;
                   }),
            0)
      << "operators have max_clients + reserved_clients + operator_clients in all";
  op.release();
  EXPECT_GE(countersOf(h).refused_too_many, 4u);
  // Once the operator's connections are gone, the other peer gets in again.
  bool back = false;
  for (int i = 0; i < 100 && !back; ++i) {
    back = asUser(kNobody, kNogroup, {},
                  [&] { return Client::connect(h.socketPath(), {}) ? 0 : 1; }) == 0;
    if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(back) << "the other peer is accepted again after the operator's run";
}

TEST(ServerLimits, AnOperatorsRefusalNamesTheLimitAndTheFix) {
  // An ns-3 script that attaches more nodes than its process may hold connections: the
  // refusal says which limit it hit and how to raise it or split the script.
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as several users";
  ServerOptions o = peersAndAnOperator();
  o.max_clients_per_operator_pid = 3;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  EXPECT_EQ(asUser(kNobody - 1, kNobody - 1, {},
                   [&] {
                     std::vector<std::unique_ptr<Client>> held;
                     if (openMany(h.socketPath(), 3, &held) != "yyy") return 1;
                     auto c = Client::connect(h.socketPath(), {});
                     if (c || c.error().code != -ENOSPC) return 2;
                     const std::string& m = c.error().message;
                     std::fprintf(stderr, "refusal: %s\n", m.c_str());
                     return m.find("limit 3") != std::string::npos &&
                                    m.find("--operator-connections") != std::string::npos &&
                                    m.find("mpirun -np") != std::string::npos
                                ? 0
                                : 3;
                   }),
            0)
      << "0 = refused with a message naming the limit, --operator-connections and mpirun";
  // The operators' total says the same.
  o.max_clients_per_operator_pid = 64;
  o.max_clients = 2;
  o.reserved_clients = 1;
  o.operator_clients = 1;
  ServerHarness all(o);
  ASSERT_TRUE(all.start());
  ::chmod(all.dir().c_str(), 0755);
  EXPECT_EQ(asUser(kNobody - 1, kNobody - 1, {},
                   [&] {
                     std::vector<std::unique_ptr<Client>> held;
                     if (openMany(all.socketPath(), 4, &held) != "yyyy") return 1;
                     auto c = Client::connect(all.socketPath(), {});
                     if (c) return 2;
                     const std::string& m = c.error().message;
                     return m.find("limit 4") != std::string::npos &&
                                    m.find("--operator-connections") != std::string::npos
                                ? 0
                                : 3;
                   }),
            0);
}

TEST(ServerLimits, TheClientsSocketLeavesTheSelectRangeToItsProgram) {
  // A program with many clients and devices read by select() (ns-3's FdNetDevice) needs
  // its descriptors below FD_SETSIZE for the devices.
  rlimit rl{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_cur <= FD_SETSIZE + 16) GTEST_SKIP() << "RLIMIT_NOFILE " << rl.rlim_cur;
  ServerHarness h;
  ASSERT_TRUE(h.start());
  auto c = Client::connect(h.socketPath(), {});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_GE(c.value()->fd(), FD_SETSIZE);
}

TEST(ServerAccess, SocketOwnerAloneLetsThatUserIn) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as other users";
  ServerOptions o;  // as fastpathd --socket-uid 65534: owner of the 0660 socket
  o.socket_owner = kNobody;
  o.allowed_uids = {kNobody};
  o.allow_same_uid = false;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  struct stat st {};
  ASSERT_EQ(::stat(h.socketPath().c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, kNobody);
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_EQ(servedAs(h.socketPath(), kNobody, kNogroup, {}), 0);
  // Another unprivileged user cannot even open the socket file.
  EXPECT_EQ(refusedAs(h.socketPath(), kNobody - 1, kNobody - 1), 0);
}

TEST(ServerAccess, SupplementaryGroupIsEnough) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as other users";
  constexpr gid_t kGroup = 4242;
  ServerOptions o;  // as fastpathd --socket-gid 4242
  o.socket_group = std::to_string(kGroup);
  o.allow_same_uid = false;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  // The group only as a supplementary group: passes the file check and the server's.
  EXPECT_EQ(servedAs(h.socketPath(), kNobody, kNogroup, {kGroup}), 0);
  // Without the group: the file check refuses (0660, other group).
  EXPECT_EQ(refusedAs(h.socketPath(), kNobody, kNogroup), 0);
}

TEST(ServerAccess, RefusalSaysWhatToAskFor) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as other users";
  constexpr gid_t kGroup = 4242;
  ServerOptions o;
  o.socket_mode = 0666;  // reach the credential check
  o.socket_group = std::to_string(kGroup);
  o.allow_same_uid = false;
  ServerHarness h(o);
  ASSERT_TRUE(h.start());
  ::chmod(h.dir().c_str(), 0755);
  EXPECT_EQ(asUser(kNobody, kNogroup, {},
                   [&] {
                     auto c = Client::connect(h.socketPath(), {});
                     if (c || c.error().code != -EACCES) return 1;
                     return c.error().message.find("group 4242") != std::string::npos ? 0 : 2;
                   }),
            0);
}

}  // namespace
}  // namespace fastpath::ctrl
