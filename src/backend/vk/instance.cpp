// The Vulkan loader, the instance and the validation messenger of a context raydb creates.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

#include "backend/vk/context_setup.hpp"

namespace raydb::detail {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::once_flag g_volk_once;
VkResult g_volk_status = VK_SUCCESS;

bool has_instance_layer(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

bool has_instance_extension(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  vkEnumerateInstanceExtensionProperties(nullptr, &n, exts.data());
  for (auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                void* user) {
  auto* ctx = static_cast<VkContext*>(user);
  if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
  ctx->validation_messages.fetch_add(1);
  std::string text =
      fmt::format("[vulkan {}] {}",
                  severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning",
                  data && data->pMessage ? data->pMessage : "");
  if (ctx->on_validation_message)
    ctx->on_validation_message(text);
  else
    std::fprintf(stderr, "%s\n", text.c_str());
  return VK_FALSE;
}

}  // namespace

void init_loader(void* get_instance_proc_addr) {
  if (get_instance_proc_addr) {
    volkInitializeCustom(reinterpret_cast<PFN_vkGetInstanceProcAddr>(get_instance_proc_addr));
    return;
  }
  std::call_once(g_volk_once, [] { g_volk_status = volkInitialize(); });
  if (g_volk_status != VK_SUCCESS)
    throw Error(
        Errc::unsupported,
        "no Vulkan loader found (libvulkan.so.1): install libvulkan1, or run tools/setup.sh");
}

void load_instance_functions(VkContext& c) {
  auto get = [&c](const char* name) { return vkGetInstanceProcAddr(c.instance, name); };
  c.destroy_instance = reinterpret_cast<PFN_vkDestroyInstance>(get("vkDestroyInstance"));
  c.destroy_messenger =
      reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(get("vkDestroyDebugUtilsMessengerEXT"));
  c.set_object_name =
      reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(get("vkSetDebugUtilsObjectNameEXT"));
}

void create_instance(VkContext& c, bool validation) {
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_2)
    throw Error(Errc::unsupported, "the Vulkan loader is older than 1.2: raydb needs Vulkan 1.2");
  std::vector<const char*> layers, exts;
  if (validation) {
    if (!has_instance_layer(kValidationLayer))
      throw Error(Errc::unsupported,
                  "validation was requested but VK_LAYER_KHRONOS_validation is not installed "
                  "(Debian: apt-get install vulkan-validationlayers)");
    layers.push_back(kValidationLayer);
  }
  c.debug_utils = has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (c.debug_utils) exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "raydb";
  app.pEngineName = "raydb";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
  ci.ppEnabledExtensionNames = exts.data();
  VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                   VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                   VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  mi.pfnUserCallback = on_debug_message;
  mi.pUserData = &c;
  if (validation && c.debug_utils) ci.pNext = &mi;  // also catches messages of instance creation
  vk_check(vkCreateInstance(&ci, nullptr, &c.instance), "vkCreateInstance");
  volkLoadInstanceOnly(c.instance);
  load_instance_functions(c);
  c.api_version = VK_API_VERSION_1_2;
  if (validation && c.debug_utils)
    vk_check(vkCreateDebugUtilsMessengerEXT(c.instance, &mi, nullptr, &c.messenger),
             "vkCreateDebugUtilsMessengerEXT");
}

}  // namespace raydb::detail
