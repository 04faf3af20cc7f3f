// SPDX-License-Identifier: GPL-2.0-only
// Reaching a private member of an ns-3 class that offers no public way to it (a stock
// device's trace sources, a stock helper's factories). An explicit template instantiation
// may name private members (C++17 [temp.explicit]/12, C++20 [temp.spec.general]/6): Rob
// hands out a pointer to the member its tag names, and the compiler checks the member's
// name and type against ns-3's header. Internal to the module; not installed.
#pragma once

/// Defines Rob in the enclosing namespace (an anonymous one): a tag's friend Get must be
/// declared in the namespace that defines it, so Rob and the tags live together.
#define FP_PRIVATE_MEMBER_ACCESS()                                                             \
    template <typename Tag, typename Tag::type M>                                              \
    struct Rob                                                                                 \
    {                                                                                          \
        friend typename Tag::type Get(Tag)                                                     \
        {                                                                                      \
            return M;                                                                          \
        }                                                                                      \
    }

/// Defines tag NAME; Get(NAME{}) is then `&CLASS::MEMBER`, of type `TYPE CLASS::*`.
#define FP_PRIVATE_MEMBER(NAME, CLASS, TYPE, MEMBER)                                           \
    struct NAME                                                                                \
    {                                                                                          \
        using type = TYPE CLASS::*;                                                            \
        friend type Get(NAME);                                                                 \
    };                                                                                         \
    template struct Rob<NAME, &CLASS::MEMBER>
