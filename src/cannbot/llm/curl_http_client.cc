#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>

#include "cannbot/llm/http_client.h"

namespace cannbot::llm {
namespace {

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * count);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r\n") + 1);
    (*headers)[name] = value;
  }
  return size * count;
}

// curl calls this about once a second while a transfer waits, and more often while data
// flows: a non-zero answer ends the transfer.
int OnProgress(void* abort, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(abort)->load() ? 1 : 0;
}

class CurlHttpClient : public HttpClient {
 public:
  CurlHttpClient() {
    // curl_global_init is not thread-safe; once per process is what it asks for.
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  Result<HttpResponse> Send(const HttpRequest& request) override {
    std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) return Status::Internal("cannot create a curl handle");
    curl_slist* list = nullptr;
    for (const auto& [name, value] : request.headers) {
      list = curl_slist_append(list, (name + ": " + value).c_str());
    }
    std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(list, curl_slist_free_all);
    HttpResponse response;
    CURL* h = curl.get();
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (request.method != "GET") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM-based timeouts
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &response.headers);
    if (request.abort != nullptr) {
      curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
      curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, OnProgress);
      curl_easy_setopt(h, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(request.abort));
    }
    CURLcode rc = curl_easy_perform(h);
    if (rc == CURLE_ABORTED_BY_CALLBACK) {
      return Status::Aborted(request.url + ": the request was abandoned (the job was stopped)");
    }
    if (rc != CURLE_OK) {
      const std::string what = curl_easy_strerror(rc);
      if (rc == CURLE_OPERATION_TIMEDOUT) return Status::Timeout(request.url + ": " + what);
      return Status::Unavailable(request.url + ": " + what);
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    return response;
  }
};

}  // namespace

std::unique_ptr<HttpClient> NewCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

}  // namespace cannbot::llm
