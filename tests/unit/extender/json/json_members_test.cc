// The validating scan behind large extender bodies agrees with simdjson on what is JSON, and
// finds each top-level member's value as written.

#include "extender/json/json_members.h"

#include <simdjson.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace headroom::extender {
namespace {

TEST(TopLevelMembers, FindsTheMembersAsWritten) {
  const std::string text = R"( { "Pod" : {"a":[1,2,{"b":null}]}, "x\"y":"s\\u0041" ,"n":-1.5e+3,
      "t":true, "e":[], "o":{} } )";
  absl::StatusOr<std::vector<JsonMember>> members = TopLevelMembers(text);
  ASSERT_TRUE(members.ok()) << members.status();
  ASSERT_EQ(members->size(), 6u);
  EXPECT_EQ((*members)[0].key, "Pod");
  EXPECT_EQ((*members)[0].value, R"({"a":[1,2,{"b":null}]})");
  EXPECT_EQ((*members)[1].key, R"(x\"y)");
  EXPECT_TRUE((*members)[1].key_escaped);
  EXPECT_EQ((*members)[1].value, R"("s\\u0041")");
  EXPECT_EQ((*members)[2].value, "-1.5e+3");
  EXPECT_EQ((*members)[3].value, "true");
  EXPECT_EQ((*members)[4].value, "[]");
  EXPECT_EQ((*members)[5].value, "{}");
  EXPECT_TRUE(TopLevelMembers("{}")->empty());
}

// Every text of the corpus: valid for the scan exactly when simdjson's DOM accepts it as an
// object.
TEST(TopLevelMembers, AgreesWithSimdjson) {
  const std::vector<std::string> corpus = {
      "{}",
      "[]",
      "1",
      "",
      " ",
      "{",
      "}",
      "{\"a\":1}",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{a:1}",
      "{\"a\":[1,2,]}",
      "{\"a\":[1 2]}",
      "{\"a\":01}",
      "{\"a\":-}",
      "{\"a\":1.}",
      "{\"a\":.5}",
      "{\"a\":1e}",
      "{\"a\":1E+9}",
      "{\"a\":-0.0e-0}",
      "{\"a\":tru}",
      "{\"a\":nul}",
      "{\"a\":true,\"b\":false,\"c\":null}",
      "{\"a\":\"\\x\"}",
      "{\"a\":\"\\u12\"}",
      "{\"a\":\"\\u12G4\"}",
      "{\"a\":\"\\u00e9\\n\\t\\/\"}",
      std::string("{\"a\":\"\x01\"}"),
      "{\"a\":\"unterminated}",
      "{\"a\":1} x",
      "{\"a\":1}  \n",
      "{\"a\":{\"b\":{\"c\":[[]]}}}",
      "{\"a\":[}",
      "{\"a\":{]}",
      "{\"a\":[1]]}",
      "{\"a\":\"\xc3\xa9\"}",
      "{\"a\":\"\xc3\"}",
      "{\"a\":\"\xff\"}",
      "{\"\":0}",
      "{\"a\":[{},[],\"\",0,true]}",
      "{\"a\":1,\"a\":2}",
  };
  simdjson::dom::parser parser;
  for (const std::string& text : corpus) {
    simdjson::dom::object object;
    const bool simdjson_ok = parser.parse(text).get(object) == simdjson::SUCCESS;
    EXPECT_EQ(TopLevelMembers(text).ok(), simdjson_ok) << "\"" << text << "\"";
  }
}

TEST(TopLevelMembers, RefusesNestingDeeperThanTheBoundAndSaysWhere) {
  const auto nested = [](int depth) {
    return "{\"a\":" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
  };
  EXPECT_TRUE(TopLevelMembers(nested(100)).ok());
  const absl::StatusOr<std::vector<JsonMember>> deep = TopLevelMembers(nested(101));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nesting deeper than"), std::string::npos);
  const absl::StatusOr<std::vector<JsonMember>> bad = TopLevelMembers("{\"a\":[1,2,]}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("at byte 10"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace headroom::extender
