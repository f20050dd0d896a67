// element_doc.cpp: docs/ELEMENT.md's property tables, made from the elements
// themselves (their GParamSpecs, which the library's parameter table makes for
// cudadenoise), the way gst-inspect-1.0 lists them, so the doc and the program
// cannot disagree.
//
//   cudadenoise-element-doc --check docs/ELEMENT.md   exit 1 when a table differs (meson test element-doc)
//   cudadenoise-element-doc --write docs/ELEMENT.md   rewrites the tables in place
//   cudadenoise-element-doc                           prints them
//
// A table sits between the lines "<!-- generated: ELEMENT properties -->" and
// "<!-- end generated -->" of the doc; the text around them is left alone.
#include <gst/gst.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const char* const kElements[] = {"cudadenoise", "cudaaddnoise"};

std::string begin_marker(const std::string& element) { return "<!-- generated: " + element + " properties -->"; }
const char* const kEndMarker = "<!-- end generated -->";

// A table cell: '|' escaped, newlines folded.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string number(double v) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string type_of(GParamSpec* p) {
  if (G_IS_PARAM_SPEC_ENUM(p)) return "enum";
  if (G_IS_PARAM_SPEC_BOOLEAN(p)) return "bool";
  if (G_IS_PARAM_SPEC_INT(p)) return "int";
  if (G_IS_PARAM_SPEC_UINT64(p)) return "uint64";
  if (G_IS_PARAM_SPEC_DOUBLE(p)) return "double";
  if (G_IS_PARAM_SPEC_STRING(p)) return "string";
  if (GST_IS_PARAM_SPEC_ARRAY_LIST(p)) {
    GstParamSpecArray* a = GST_PARAM_SPEC_ARRAY_LIST(p);
    return std::string("array of ") + (a->element_spec ? g_type_name(a->element_spec->value_type) : "values");
  }
  return g_type_name(p->value_type);
}

std::string range_of(GParamSpec* p) {
  if (G_IS_PARAM_SPEC_ENUM(p)) {
    GEnumClass* e = G_PARAM_SPEC_ENUM(p)->enum_class;
    std::string out;
    for (guint i = 0; i < e->n_values; i++) out += (i ? ", " : "") + std::string("`") + e->values[i].value_nick + "`";
    return out;
  }
  if (G_IS_PARAM_SPEC_BOOLEAN(p)) return "`true`, `false`";
  if (G_IS_PARAM_SPEC_INT(p)) {
    GParamSpecInt* i = G_PARAM_SPEC_INT(p);
    return std::to_string(i->minimum) + " to " + std::to_string(i->maximum);
  }
  if (G_IS_PARAM_SPEC_UINT64(p)) {
    GParamSpecUInt64* i = G_PARAM_SPEC_UINT64(p);
    return std::to_string(i->minimum) + " to " + std::to_string(i->maximum);
  }
  if (G_IS_PARAM_SPEC_DOUBLE(p)) {
    GParamSpecDouble* d = G_PARAM_SPEC_DOUBLE(p);
    return number(d->minimum) + " to " + number(d->maximum);
  }
  return "";
}

std::string default_of(GParamSpec* p) {
  if (!(p->flags & G_PARAM_WRITABLE)) return "";
  const GValue* v = g_param_spec_get_default_value(p);
  if (G_VALUE_HOLDS_ENUM(v)) {
    GEnumValue* e = g_enum_get_value(G_PARAM_SPEC_ENUM(p)->enum_class, g_value_get_enum(v));
    return e ? std::string("`") + e->value_nick + "`" : std::to_string(g_value_get_enum(v));
  }
  if (G_VALUE_HOLDS_BOOLEAN(v)) return g_value_get_boolean(v) ? "`true`" : "`false`";
  if (G_VALUE_HOLDS_INT(v)) return std::to_string(g_value_get_int(v));
  if (G_VALUE_HOLDS_UINT64(v)) return std::to_string(g_value_get_uint64(v));
  if (G_VALUE_HOLDS_DOUBLE(v)) return number(g_value_get_double(v));
  if (G_VALUE_HOLDS_STRING(v)) return std::string("`\"") + (g_value_get_string(v) ? g_value_get_string(v) : "") + "\"`";
  return "";
}

std::string changeable(GParamSpec* p) {
  if (!(p->flags & G_PARAM_WRITABLE)) return "read-only";
  if (p->flags & GST_PARAM_MUTABLE_PLAYING) return "while playing";
  if (p->flags & GST_PARAM_MUTABLE_PAUSED) return "up to PAUSED";
  if (p->flags & GST_PARAM_MUTABLE_READY) return "in NULL or READY";
  return "(no flag)";  // as gst-inspect-1.0, which then says nothing
}

// The element's table: every property but GstObject's own (name, parent).
std::string table(const char* element) {
  GstElement* e = gst_element_factory_make(element, nullptr);
  if (!e) throw std::runtime_error(std::string("no element ") + element + " (GST_PLUGIN_PATH?)");
  guint n = 0;
  GParamSpec** props = g_object_class_list_properties(G_OBJECT_GET_CLASS(e), &n);
  std::ostringstream out;
  out << "| property | type | values | default | changeable | what it does |\n";
  out << "| --- | --- | --- | --- | --- | --- |\n";
  for (guint i = 0; i < n; i++) {
    GParamSpec* p = props[i];
    if (p->owner_type == GST_TYPE_OBJECT) continue;
    out << "| `" << p->name << "` | " << cell(type_of(p)) << " | " << cell(range_of(p)) << " | "
        << cell(default_of(p)) << " | " << changeable(p) << " | " << cell(g_param_spec_get_blurb(p)) << " |\n";
  }
  g_free(props);
  gst_object_unref(e);
  return out.str();
}

// The doc with every table replaced by `tables` (in kElements' order); throws
// when a marker is missing.
std::string with_tables(const std::string& doc, const std::vector<std::string>& tables) {
  std::string out = doc;
  for (std::size_t k = 0; k < tables.size(); k++) {
    const std::string begin = begin_marker(kElements[k]) + "\n";
    const std::size_t b = out.find(begin);
    if (b == std::string::npos) throw std::runtime_error("no line '" + begin_marker(kElements[k]) + "'");
    const std::size_t from = b + begin.size();
    const std::size_t to = out.find(kEndMarker, from);
    if (to == std::string::npos) throw std::runtime_error(std::string("no line '") + kEndMarker + "' after " + begin);
    out.replace(from, to - from, tables[k]);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  const std::string action = argc > 1 ? argv[1] : "";
  if (!(argc == 1 || (argc == 3 && (action == "--check" || action == "--write")))) {
    std::cerr << "usage: cudadenoise-element-doc [--check|--write docs/ELEMENT.md]\n";
    return 2;
  }
  try {
    std::vector<std::string> tables;
    for (const char* e : kElements) tables.push_back(table(e));
    if (argc == 1) {
      for (std::size_t k = 0; k < tables.size(); k++) std::cout << "## " << kElements[k] << "\n\n" << tables[k] << "\n";
      return 0;
    }
    const std::string path = argv[2];
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream doc;
    doc << in.rdbuf();
    const std::string now = with_tables(doc.str(), tables);
    if (action == "--check") {
      if (now == doc.str()) return 0;
      std::cerr << path << ": its property tables differ from the elements' properties; regenerate them with\n"
                << "  meson compile -C build element-doc   (or cudadenoise-element-doc --write " << path << ")\n"
                << "what the elements say:\n";
      for (std::size_t k = 0; k < tables.size(); k++) std::cerr << tables[k] << "\n";
      return 1;
    }
    const std::string temp = path + ".tmp";
    {
      std::ofstream out(temp);
      out << now;
      if (!out) throw std::runtime_error("cannot write " + temp);
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + temp + " to " + path);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "cudadenoise-element-doc: " << e.what() << "\n";
    return 1;
  }
}
