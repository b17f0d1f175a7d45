// Error propagation for Result<T> (error.hpp), as ccache's TRY and TRY_ASSIGN:
//   TRY(fs.rename(a, b));                        returns the error, if any, from the enclosing function
//   TRY_ASSIGN(auto reader, open_archive(path)); declares `reader` as the value, or returns the error
// TRY_ASSIGN may also assign to a variable declared before: TRY_ASSIGN(plan, make_plan(...)).
#pragma once
#include <expected>
#include <utility>

#include "cudnn_install/error.hpp"

#define CUDNN_INSTALL_CONCAT_INNER(a, b) a##b
#define CUDNN_INSTALL_CONCAT(a, b) CUDNN_INSTALL_CONCAT_INNER(a, b)

#define TRY(expression)                                                                                        \
  do {                                                                                                         \
    if (auto try_result_ = (expression); !try_result_) return std::unexpected(std::move(try_result_).error()); \
  } while (false)

#define TRY_ASSIGN(target, expression) TRY_ASSIGN_IMPL(target, expression, CUDNN_INSTALL_CONCAT(try_result_, __LINE__))
// `target` may be a declaration ("auto x"), which parentheses would make an expression.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TRY_ASSIGN_IMPL(target, expression, result)               \
  auto result = (expression);                                     \
  if (!result) return std::unexpected(std::move(result).error()); \
  target = std::move(*result)
// NOLINTEND(bugprone-macro-parentheses)
