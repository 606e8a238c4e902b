// Lists that cubd pages (ListSpaces, ListUnits, ...: Limit, PageToken, NextPageToken; see
// docs/api.md "Paging"). A list command follows the continuation itself and prints every row,
// page by page as they arrive: a table starts printing with the first page (its columns sized by
// that page; a wider cell of a later page pushes the rest of its row right), --names prints the
// first column of each page, and json/yaml/--jq print one document once the last page is in.
// With --limit N it prints at most N rows and, when more exist, says on stderr how to go on:
// the same command with `--page-token TOKEN`.
#ifndef CUB_CLI_PAGED_LIST_H_
#define CUB_CLI_PAGED_LIST_H_

#include <google/protobuf/message.h>
#include <google/protobuf/repeated_ptr_field.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"

namespace cub::cli {

inline constexpr int kMaxServerPage = 1000;  // cubd caps Limit at this

struct PageFlags {
  int limit = 0;           // --limit N: at most N rows; 0: every row
  std::string page_token;  // --page-token T: start where an earlier --limit stopped
};

// Adds --limit and --page-token to a list command; `what` names its rows ("Spaces").
void AddPageFlags(CLI::App* cmd, PageFlags* flags, const std::string& what);

// Prints the rows of one list as its pages arrive (see the file comment).
class ListStream {
 public:
  ListStream(Printer printer, std::vector<std::string> header)
      : printer_(std::move(printer)), header_(std::move(header)) {}
  // One page: the messages (for json/yaml) and their table rows. Returns an exit code.
  int Add(const std::vector<const google::protobuf::Message*>& items,
          std::vector<std::vector<std::string>> rows);
  // After the last page: the json/yaml document, or a table's header when no page came.
  // `next_token` non-empty: the hint how to continue, on stderr.
  int Finish(const std::string& next_token);

 private:
  Printer printer_;
  std::vector<std::string> header_;
  std::vector<size_t> widths_;  // the first page's; empty before it
  bool started_ = false;
  std::vector<std::unique_ptr<google::protobuf::Message>> kept_;  // json/yaml: every item
};

// Rows to ask the next page for: the rest of --limit, at most a server page; 0 (the server's
// default page) when every row is wanted.
inline int NextPageLimit(const PageFlags& flags, int printed) {
  if (flags.limit <= 0) return 0;
  return std::min(flags.limit - printed, kMaxServerPage);
}

// Keeps T of PrintPaged deduced from `items` alone (a lambda is no std::function to deduce from).
template <typename T>
struct NonDeduced {
  using type = T;
};

// Calls `method` page by page with `req` (its limit and page token set here) and prints the
// `items` of each response through a ListStream.
template <typename Stub, typename Req, typename Resp, typename T>
int PrintPaged(
    const Env& env, const PageFlags& flags, Req req,
    grpc::Status (Stub::*method)(grpc::ClientContext*, const Req&, Resp*),
    const google::protobuf::RepeatedPtrField<T>& (Resp::*items)() const,
    std::vector<std::string> header,
    const typename NonDeduced<std::function<std::vector<std::string>(const T&)>>::type& row) {
  std::unique_ptr<Client> client = Connect(env);
  if (client == nullptr) return kExitFailed;
  ListStream out(env.printer(), std::move(header));
  std::string token = flags.page_token;
  int printed = 0;
  do {
    req.set_limit(NextPageLimit(flags, printed));
    req.set_page_token(token);
    Resp resp;
    if (!client->Call(method, req, &resp)) return kExitFailed;
    std::vector<const google::protobuf::Message*> page;
    std::vector<std::vector<std::string>> rows;
    for (const T& item : (resp.*items)()) {
      page.push_back(&item);
      rows.push_back(row(item));
    }
    printed += static_cast<int>(page.size());
    if (int rc = out.Add(page, std::move(rows)); rc != 0) return rc;
    token = resp.next_page_token();
  } while (!token.empty() && (flags.limit <= 0 || printed < flags.limit));
  return out.Finish(token);
}

}  // namespace cub::cli

#endif  // CUB_CLI_PAGED_LIST_H_
