from ui.highlight import highlight_config, highlight_diff


def test_cli_highlighting_marks_keywords_comments_numbers_and_escapes():
    html = highlight_config("! comment\ninterface Ethernet1\n   description <to spine1>\n   mtu 9214\n")
    assert '<span class="cm">! comment</span>' in html
    assert '<span class="kw">interface</span> Ethernet1' in html
    assert "&lt;to spine1&gt;" in html and "<to spine1>" not in html
    assert '<span class="num">9214</span>' in html


def test_json_highlighting():
    html = highlight_config('{"PORT": {"Ethernet0": {"mtu": "9100", "speed": 400000}}}', "json")
    assert '<span class="key">&quot;PORT&quot;</span>:' in html
    assert '<span class="str">&quot;9100&quot;</span>' in html
    assert '<span class="num">400000</span>' in html


def test_diff_highlighting():
    html = highlight_diff("--- a\n+++ b\n@@ -1 +1 @@\n-mtu 1500\n+mtu 9214\n same")
    assert '<span class="del">-mtu 1500</span>' in html
    assert '<span class="add">+mtu 9214</span>' in html
    assert '<span class="hunk">+++ b</span>' in html
