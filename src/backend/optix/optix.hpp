// The OptiX backend as the rest of raydb sees it: no OptiX types here, so callers compile the same
// with or without it (absent.cpp answers 'unavailable' then).
#pragma once

#include "backend/vk/context_impl.hpp"
#include "raydb/optix.hpp"

namespace raydb::detail::optix {

// Whether this binary has the OptiX backend compiled in (CMake found OptiX headers).
bool built();

// optix_support(): probed once per context. Where available it also holds the OptiX device
// context, made on the CUDA device that is the Vulkan device (backend/cuda: equal UUIDs).
const OptixSupport& support(VkContext& ctx);

// Throws Errc::unsupported with support()'s reason unless OptiX is available.
void require(VkContext& ctx);

}  // namespace raydb::detail::optix
