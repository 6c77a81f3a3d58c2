// The few Vulkan handle types raydb's public headers mention, declared exactly as
// <vulkan/vulkan_core.h> declares them (repeating such a typedef is legal C++), so including a
// raydb header never pulls in Vulkan prototypes or fights the host's loader (volk or not).
#pragma once

typedef struct VkInstance_T* VkInstance;
typedef struct VkPhysicalDevice_T* VkPhysicalDevice;
typedef struct VkDevice_T* VkDevice;
typedef struct VkQueue_T* VkQueue;
