// lsm::Error's message is one line a terminal or a log can show, whatever
// the user typed: control characters become '?', a message of kilobytes
// keeps its start and end around " ... ", and UTF-8 is never cut inside a
// character.
#include <gtest/gtest.h>

#include <string>

#include "error.h"

namespace lsm {
namespace {

TEST(ErrorMessage, ControlCharactersBecomeQuestionMarks) {
  const Error e(ErrorKind::BadInput, std::string("--metric: 'A\0B\nC\x1b[31m' is bad  ", 30));
  EXPECT_EQ(std::string(e.what()), "--metric: 'A?B?C?[31m' is bad");
  EXPECT_EQ(e.kind(), ErrorKind::BadInput);
}

TEST(ErrorMessage, ShortMessagesAreKeptWhole) {
  const std::string message = "--metrics: '" + std::string(400, 'x') + "' is bad";
  ASSERT_LE(message.size(), Error::kMaxErrorLength);
  EXPECT_EQ(std::string(Error(ErrorKind::BadInput, message).what()), message);
}

TEST(ErrorMessage, LongMessagesKeepStartAndEnd) {
  const std::string message = "option metric: '" + std::string(5000, '6') + "' is not a patch metric (expected one of AREA)";
  const std::string shown = Error(ErrorKind::BadInput, message).what();
  EXPECT_LE(shown.size(), Error::kMaxErrorLength);
  EXPECT_EQ(shown.rfind("option metric: '666", 0), 0u) << shown;
  EXPECT_NE(shown.find("666 ... 666"), std::string::npos) << shown;
  EXPECT_EQ(shown.substr(shown.size() - 46), "' is not a patch metric (expected one of AREA)");
}

TEST(ErrorMessage, LongMessagesAreNotCutInsideAUtf8Character) {
  std::string forest;
  for (int i = 0; i < 600; ++i) forest += "\xE6\xA3\xAE";  // 森, three bytes
  const std::string shown = Error(ErrorKind::BadInput, "class '" + forest + "'").what();
  const size_t gap = shown.find(" ... ");
  ASSERT_NE(gap, std::string::npos);
  EXPECT_EQ((gap - 7) % 3, 0u) << "the head ends after a whole character";
  EXPECT_EQ((shown.size() - gap - 5 - 1) % 3, 0u) << "the tail starts at a whole character";
}

}  // namespace
}  // namespace lsm
