// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-point-to-point-net-device.h"

#include "fast-path-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathPointToPointNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FastPathPointToPointNetDevice);

namespace
{

/// A trace source of the engine's, reached through the device: a script's sink on
/// `.../$ns3::PointToPointNetDevice/PhyRxDrop` connects to the engine's PhyRxDrop.
class EngineTraceSource : public TraceSourceAccessor
{
  public:
    explicit EngineTraceSource(std::string name)
        : m_name(std::move(name))
    {
    }

    bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        Ptr<FastPathNetDevice> e = EngineOf(obj);
        return e && e->TraceConnectWithoutContext(m_name, cb);
    }

    bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        Ptr<FastPathNetDevice> e = EngineOf(obj);
        return e && e->TraceConnect(m_name, context, cb);
    }

    bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        Ptr<FastPathNetDevice> e = EngineOf(obj);
        return e && e->TraceDisconnectWithoutContext(m_name, cb);
    }

    bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        Ptr<FastPathNetDevice> e = EngineOf(obj);
        return e && e->TraceDisconnect(m_name, context, cb);
    }

  private:
    static Ptr<FastPathNetDevice> EngineOf(ObjectBase* obj)
    {
        auto* d = dynamic_cast<FastPathPointToPointNetDevice*>(obj);
        return d ? d->GetEngine() : nullptr;
    }

    std::string m_name;
};

/// PointToPointNetDevice's own ReceiveErrorModel attribute (it has no getter).
TypeId::AttributeInformation
StockErrorModel()
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_IF(
        !PointToPointNetDevice::GetTypeId().LookupAttributeByName("ReceiveErrorModel", &info),
        "ns3::PointToPointNetDevice has no attribute ReceiveErrorModel");
    return info;
}

} // namespace

TypeId
FastPathPointToPointNetDevice::GetTypeId()
{
    // TypeId refuses an attribute or trace source a parent has already, and a lookup takes
    // the first of the name from the object's own TypeId up: so the engine's are added
    // while the parent is Object, and the parent is set after (as FastPathWatched does).
    static TypeId tid = []() {
        TypeId t("ns3::FastPathPointToPointNetDevice");
        t.SetParent(Object::GetTypeId());
        const TypeId::AttributeInformation stock = StockErrorModel();
        // Config's path resolver follows every pointer attribute of a name, this one's and
        // PointToPointNetDevice's: under another identity, a path through the name reaches
        // the model once (through PointToPointNetDevice's, read with this accessor). A
        // factory's value is keyed by the checker of the type it was set on: this one's
        // takes it here, PointToPointNetDevice's in its own (NotifyConstructionCompleted
        // hands that one to the engine).
        t.AddAttribute("ReceiveErrorModel",
                       stock.help,
                       PointerValue(),
                       MakePointerAccessor(&FastPathPointToPointNetDevice::SetErrorModel,
                                           &FastPathPointToPointNetDevice::GetErrorModel),
                       FastPathWatched::UnfollowedByConfig(stock.checker));
        t.AddTraceSource("PhyRxDrop",
                         "A frame the receive error model dropped in the device.",
                         Ptr<const TraceSourceAccessor>(new EngineTraceSource("PhyRxDrop"),
                                                        false),
                         "ns3::Packet::TracedCallback");
        t.SetParent(FastPathWatchedPointToPointNetDevice::GetTypeId());
        t.SetGroupName("FastPath");
        t.AddConstructor<FastPathPointToPointNetDevice>();
        return t;
    }();
    return tid;
}

namespace
{

/// A function's static: set by whoever, whenever, without an initialization order.
FastPathPointToPointNetDevice::AttachHandler&
TheAttachHandler()
{
    static FastPathPointToPointNetDevice::AttachHandler handler;
    return handler;
}

} // namespace

FastPathPointToPointNetDevice::FastPathPointToPointNetDevice()
{
    // The engine exists from the start, so that every override below has it, whoever
    // creates the device: an attribute given at construction (ReceiveErrorModel) already
    // goes to it, and the engine finds this device through the aggregation.
    Ptr<FastPathNetDevice> engine = CreateObject<FastPathNetDevice>();
    engine->SetPointToPoint(true);
    AggregateObject(engine);
    m_engine = PeekPointer(engine);
    // PointToPointNetDevice's own link-change callbacks fire in Attach() only (the
    // script's go to the engine, AddLinkChangeCallback below): the moment a channel joins
    // this device. Bound by raw pointer, as the node binds itself.
    PointToPointNetDevice::AddLinkChangeCallback(
        MakeCallback(&FastPathPointToPointNetDevice::Attached, this));
}

void
FastPathPointToPointNetDevice::NotifyConstructionCompleted()
{
    PointToPointNetDevice::NotifyConstructionCompleted();
    // Construction set both attributes, the one the factory had a value for and the other
    // to none, in that order or the other: the model given (the engine's, else the one
    // PointToPointNetDevice's attribute took) goes to the engine, which places it.
    SetErrorModel(GetErrorModel());
}

void
FastPathPointToPointNetDevice::SetAttachHandler(AttachHandler handler)
{
    TheAttachHandler() = std::move(handler);
}

void
FastPathPointToPointNetDevice::Attached()
{
    if (TheAttachHandler())
    {
        TheAttachHandler()(this);
    }
}

Ptr<FastPathNetDevice>
FastPathPointToPointNetDevice::GetEngine() const
{
    return m_engine;
}

void
FastPathPointToPointNetDevice::SetErrorModel(Ptr<ErrorModel> model)
{
    // The engine decides where the model applies and sets this device's own (what
    // fastpathd's link follows) accordingly.
    m_engine->SetReceiveErrorModel(model);
}

Ptr<ErrorModel>
FastPathPointToPointNetDevice::GetErrorModel() const
{
    // A model set with the stock setter (SetReceiveErrorModel, not virtual) is the
    // device's own only.
    return m_engine->GetReceiveErrorModel() ? m_engine->GetReceiveErrorModel()
                                            : GetLinkErrorModel();
}

Ptr<ErrorModel>
FastPathPointToPointNetDevice::GetLinkErrorModel() const
{
    PointerValue v;
    StockErrorModel().accessor->Get(this, v);
    return v.Get<ErrorModel>();
}

void
FastPathPointToPointNetDevice::SetIfIndex(const uint32_t index)
{
    PointToPointNetDevice::SetIfIndex(index);
    m_engine->SetIfIndex(index);
}

void
FastPathPointToPointNetDevice::SetAddress(Address address)
{
    PointToPointNetDevice::SetAddress(address);
    m_engine->SetAddress(address);
}

Address
FastPathPointToPointNetDevice::GetAddress() const
{
    return m_engine->GetAddress();
}

bool
FastPathPointToPointNetDevice::SetMtu(const uint16_t mtu)
{
    // The Mtu attribute (a factory's value at construction, a script's SetMtu) reaches the
    // engine, which exists from construction: the link is created with what GetMtu says.
    return PointToPointNetDevice::SetMtu(mtu) && m_engine->SetMtu(mtu);
}

uint16_t
FastPathPointToPointNetDevice::GetMtu() const
{
    // The port's: what fastpathd carries (the link is created with this device's Mtu).
    return m_engine->GetMtu();
}

bool
FastPathPointToPointNetDevice::IsLinkUp() const
{
    return m_engine->IsLinkUp();
}

void
FastPathPointToPointNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_engine->AddLinkChangeCallback(callback);
}

Address
FastPathPointToPointNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    // Ethernet's group MACs: the port's classifier takes those.
    return m_engine->GetMulticast(multicastGroup);
}

Address
FastPathPointToPointNetDevice::GetMulticast(Ipv6Address addr) const
{
    return m_engine->GetMulticast(addr);
}

bool
FastPathPointToPointNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    return m_engine->Send(packet, dest, protocolNumber);
}

bool
FastPathPointToPointNetDevice::SendFrom(Ptr<Packet> packet,
                                        const Address& source,
                                        const Address& dest,
                                        uint16_t protocolNumber)
{
    return m_engine->SendFrom(packet, source, dest, protocolNumber);
}

void
FastPathPointToPointNetDevice::SetNode(Ptr<Node> node)
{
    PointToPointNetDevice::SetNode(node);
    // The engine's reader delivers in the node's context.
    m_engine->SetNode(node);
}

bool
FastPathPointToPointNetDevice::NeedsArp() const
{
    // The port carries Ethernet frames (fastpathd's link ports have MACs).
    return m_engine->NeedsArp();
}

void
FastPathPointToPointNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rx = cb;
    m_engine->SetReceiveCallback(MakeCallback(&FastPathPointToPointNetDevice::FromEngine, this));
}

void
FastPathPointToPointNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscRx = cb;
    m_engine->SetPromiscReceiveCallback(
        MakeCallback(&FastPathPointToPointNetDevice::PromiscFromEngine, this));
}

bool
FastPathPointToPointNetDevice::FromEngine(Ptr<NetDevice> /* engine */,
                                          Ptr<const Packet> packet,
                                          uint16_t protocol,
                                          const Address& source)
{
    // The node registered its handlers for this device, not the engine.
    return m_rx.IsNull() || m_rx(this, packet, protocol, source);
}

bool
FastPathPointToPointNetDevice::PromiscFromEngine(Ptr<NetDevice> /* engine */,
                                                 Ptr<const Packet> packet,
                                                 uint16_t protocol,
                                                 const Address& source,
                                                 const Address& destination,
                                                 PacketType type)
{
    return m_promiscRx.IsNull() || m_promiscRx(this, packet, protocol, source, destination, type);
}

} // namespace ns3
