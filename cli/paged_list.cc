#include "cli/paged_list.h"

#include <iostream>

#include "absl/strings/str_cat.h"

namespace cub::cli {

void AddPageFlags(CLI::App* cmd, PageFlags* flags, const std::string& what) {
  cmd->add_option("--limit", flags->limit,
                  absl::StrCat("Print at most N ", what,
                               " (default: all of them, read page by page); when more exist, "
                               "stderr says how to continue"))
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--page-token", flags->page_token,
                  "Continue a list where an earlier --limit stopped (the token it printed; "
                  "the other flags unchanged)")
      ->type_name("TOKEN");
}

int ListStream::Add(const std::vector<const google::protobuf::Message*>& items,
                    std::vector<std::vector<std::string>> rows) {
  if (printer_.quiet()) return 0;
  if (!printer_.table() && !printer_.options().names) {
    for (const auto* item : items) {
      kept_.emplace_back(item->New());
      kept_.back()->CopyFrom(*item);
    }
    return 0;
  }
  Table t{header_, std::move(rows)};
  if (printer_.options().names || started_) {
    started_ = true;
    if (printer_.options().names) return printer_.Rows(t);
    return printer_.Text(t.RenderWith(widths_, false));
  }
  started_ = true;
  widths_ = t.Widths();
  return printer_.Text(t.RenderWith(widths_, !printer_.options().no_header));
}

int ListStream::Finish(const std::string& next_token) {
  int rc = 0;
  if (!printer_.quiet()) {
    if (!printer_.table() && !printer_.options().names) {
      std::vector<const google::protobuf::Message*> all;
      for (const auto& m : kept_) all.push_back(m.get());
      rc = printer_.Array(all);
    } else if (!started_) {
      rc = Add({}, {});
    }
  }
  if (!next_token.empty() && !printer_.quiet()) {
    std::cerr << "More rows follow: repeat the command with --page-token " << next_token
              << std::endl;
  }
  return rc;
}

}  // namespace cub::cli
