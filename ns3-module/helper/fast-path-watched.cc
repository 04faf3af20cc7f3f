// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-watched.h"

#include "fast-path-forwarding-checker.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/pointer.h"

#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathWatched");
NS_OBJECT_ENSURE_REGISTERED(FastPathWatchedPointToPointNetDevice);
NS_OBJECT_ENSURE_REGISTERED(FastPathWatchedPointToPointChannel);
NS_OBJECT_ENSURE_REGISTERED(FastPathWatchedCsmaNetDevice);
NS_OBJECT_ENSURE_REGISTERED(FastPathWatchedCsmaChannel);
NS_OBJECT_ENSURE_REGISTERED(FastPathWatchedDropTailQueue);

namespace
{

/// The ns-3 type's accessor, then the object's OnChange.
class WatchingAccessor : public AttributeAccessor
{
  public:
    explicit WatchingAccessor(Ptr<const AttributeAccessor> inner)
        : m_inner(inner)
    {
    }

    bool Set(ObjectBase* object, const AttributeValue& value) const override
    {
        if (!m_inner->Set(object, value))
        {
            return false;
        }
        if (auto w = dynamic_cast<const FastPathWatched*>(object))
        {
            w->NotifyChange();
        }
        return true;
    }

    bool Get(const ObjectBase* object, AttributeValue& value) const override
    {
        return m_inner->Get(object, value);
    }

    bool HasGetter() const override
    {
        return m_inner->HasGetter();
    }

    bool HasSetter() const override
    {
        return m_inner->HasSetter();
    }

  private:
    Ptr<const AttributeAccessor> m_inner;
};

/// `inner` under another identity, one that Config's path resolver does not follow.
///
/// The resolver follows every attribute of the path's name whose checker is a
/// PointerChecker, in the object's TypeId and in each parent's. A watched copy of a pointer
/// attribute (TxQueue) and the ns-3 type's own lead to the same object: with the same
/// checker a path through the name (.../TxQueue/Enqueue) would reach the queue twice, and a
/// sink connected by path fire twice. With this one, the ns-3 type's own alone is followed.
class UnfollowedChecker : public FastPathForwardingChecker
{
  public:
    using FastPathForwardingChecker::FastPathForwardingChecker;
};

/// `tid` as a child of `parent` whose attributes `names` are the parent's, watched.
///
/// TypeId refuses an attribute that a parent already has, and an attribute lookup walks
/// from the object's own TypeId up, taking the first of the name. So the watching copies
/// are added while `tid`'s parent is still Object, and `parent` is set after: lookups,
/// Config paths and construction then find the copy first (construction also sets the
/// parent's own, with the same checker, so defaults and factories' values agree).
///
/// A pointer attribute's copy has a checker of its own (UnfollowedChecker) so that Config
/// paths go through the parent's alone. Construction matches a factory's values to
/// attributes by checker, so that copy takes no part in it (not ATTR_CONSTRUCT): the
/// parent's own attribute takes the value given to the ns-3 type's factory, as before.
TypeId
WatchingType(TypeId tid, TypeId parent, const std::vector<std::string>& names)
{
    tid.SetParent(Object::GetTypeId());
    for (const auto& name : names)
    {
        TypeId::AttributeInformation info;
        NS_ABORT_MSG_IF(!parent.LookupAttributeByName(name, &info),
                        parent.GetName() << " has no attribute " << name);
        const bool pointer = dynamic_cast<const PointerChecker*>(PeekPointer(info.checker));
        tid.AddAttribute(
            name,
            info.help,
            pointer ? info.flags & ~uint32_t(TypeId::ATTR_CONSTRUCT) : info.flags,
            *info.initialValue,
            Ptr<const AttributeAccessor>(new WatchingAccessor(info.accessor), false),
            pointer ? FastPathWatched::UnfollowedByConfig(info.checker) : info.checker);
    }
    tid.SetParent(parent);
    tid.SetGroupName("FastPath");
    return tid;
}

} // namespace

void
FastPathWatched::SetOnChange(std::function<void()> onChange)
{
    m_onChange = std::move(onChange);
}

void
FastPathWatched::NotifyChange() const
{
    if (m_onChange)
    {
        m_onChange();
    }
}

Ptr<const AttributeChecker>
FastPathWatched::UnfollowedByConfig(Ptr<const AttributeChecker> checker)
{
    return Ptr<const AttributeChecker>(new UnfollowedChecker(checker), false);
}

ObjectFactory
FastPathWatched::Watching(ObjectFactory factory)
{
    const TypeId tid = factory.GetTypeId();
    if (tid == PointToPointNetDevice::GetTypeId())
    {
        factory.SetTypeId(FastPathWatchedPointToPointNetDevice::GetTypeId());
    }
    else if (tid == PointToPointChannel::GetTypeId())
    {
        factory.SetTypeId(FastPathWatchedPointToPointChannel::GetTypeId());
    }
    else if (tid == CsmaNetDevice::GetTypeId())
    {
        factory.SetTypeId(FastPathWatchedCsmaNetDevice::GetTypeId());
    }
    else if (tid == CsmaChannel::GetTypeId())
    {
        factory.SetTypeId(FastPathWatchedCsmaChannel::GetTypeId());
    }
    else if (tid == DropTailQueue<Packet>::GetTypeId())
    {
        factory.SetTypeId(FastPathWatchedDropTailQueue::GetTypeId());
    }
    return factory;
}

bool
FastPathWatched::Watch(Ptr<Object> object, std::function<void()> onChange)
{
    auto w = dynamic_cast<FastPathWatched*>(PeekPointer(object));
    if (!w)
    {
        return false;
    }
    w->SetOnChange(std::move(onChange));
    return true;
}

TypeId
FastPathWatchedPointToPointNetDevice::GetTypeId()
{
    static TypeId tid = WatchingType(TypeId("ns3::FastPathWatchedPointToPointNetDevice"),
                                 PointToPointNetDevice::GetTypeId(),
                                 {"DataRate", "ReceiveErrorModel", "TxQueue", "Mtu"})
                            .AddConstructor<FastPathWatchedPointToPointNetDevice>();
    return tid;
}

TypeId
FastPathWatchedPointToPointChannel::GetTypeId()
{
    static TypeId tid = WatchingType(TypeId("ns3::FastPathWatchedPointToPointChannel"),
                                 PointToPointChannel::GetTypeId(),
                                 {"Delay"})
                            .AddConstructor<FastPathWatchedPointToPointChannel>();
    return tid;
}

TypeId
FastPathWatchedCsmaNetDevice::GetTypeId()
{
    static TypeId tid = WatchingType(TypeId("ns3::FastPathWatchedCsmaNetDevice"),
                                 CsmaNetDevice::GetTypeId(),
                                 {"ReceiveErrorModel", "TxQueue", "Mtu"})
                            .AddConstructor<FastPathWatchedCsmaNetDevice>();
    return tid;
}

TypeId
FastPathWatchedCsmaChannel::GetTypeId()
{
    static TypeId tid = WatchingType(TypeId("ns3::FastPathWatchedCsmaChannel"),
                                 CsmaChannel::GetTypeId(),
                                 {"DataRate", "Delay"})
                            .AddConstructor<FastPathWatchedCsmaChannel>();
    return tid;
}

TypeId
FastPathWatchedDropTailQueue::GetTypeId()
{
    static TypeId tid = WatchingType(TypeId("ns3::FastPathWatchedDropTailQueue"),
                                 DropTailQueue<Packet>::GetTypeId(),
                                 {"MaxSize"})
                            .AddConstructor<FastPathWatchedDropTailQueue>();
    return tid;
}

} // namespace ns3
