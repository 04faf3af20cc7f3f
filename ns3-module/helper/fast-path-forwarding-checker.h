// SPDX-License-Identifier: GPL-2.0-only
// An attribute checker that answers as another one does, under an identity of its own (a
// checker's class is what ns-3's Config resolver and a GlobalValue's hooks go by).
// Internal to the module; not installed.
#pragma once

#include "ns3/attribute.h"

#include <string>

namespace ns3
{

class FastPathForwardingChecker : public AttributeChecker
{
  public:
    explicit FastPathForwardingChecker(Ptr<const AttributeChecker> inner)
        : m_inner(inner)
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        return m_inner->Check(value);
    }

    std::string GetValueTypeName() const override
    {
        return m_inner->GetValueTypeName();
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return m_inner->HasUnderlyingTypeInformation();
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return m_inner->GetUnderlyingTypeInformation();
    }

    Ptr<AttributeValue> Create() const override
    {
        return m_inner->Create();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        return m_inner->Copy(source, destination);
    }

  private:
    Ptr<const AttributeChecker> m_inner;
};

} // namespace ns3
