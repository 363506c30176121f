"""The collective page: a heat map per tier and the what-ifs side by side for a job; bad input is a 400 page
naming the field; the heat map's SVG escapes link names and colours by load."""

from ui import svg

FABRIC = "uifab"  # tests/ui/conftest.py


def test_the_page_draws_the_heat_map_and_the_what_ifs(operator, fabric):
    response = operator.get(f"/fabrics/{FABRIC}/collective/", {"gpus": "64", "collective": "alltoall-pxn",
                                                              "qps": "1", "trials": "4", "what_if_qps": "8"})
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="heatmap"' in page and "leaf-&gt;spine" in page and page.count("<rect ") >= 16
    for name in ("as-given", "qps", "distinct-seeds", "dlb", "dual-plane"):
        assert f'data-what-if="{name}"' in page
    assert "QPs = 8" in page and "not applicable" in page and "below 1× ideal" in page
    assert "collective.bottleneck" in page


def test_the_form_alone_and_bad_input(viewer, operator, fabric):
    blank = viewer.get(f"/fabrics/{FABRIC}/collective/")
    assert blank.status_code == 200 and 'id="heatmap"' not in blank.content.decode()
    assert viewer.get(f"/fabrics/{FABRIC}/collective/", {"gpus": "64"}).status_code == 403  # operators run it
    bad = operator.get(f"/fabrics/{FABRIC}/collective/", {"gpus": "64", "qps": "0"})
    assert bad.status_code == 400 and "<b>qps</b>" in bad.content.decode()
    too_many = operator.get(f"/fabrics/{FABRIC}/collective/", {"gpus": "100000"})
    assert too_many.status_code == 400 and "<b>job.gpus</b>" in too_many.content.decode()
    assert operator.get("/fabrics/nope/collective/", {"gpus": "8"}).status_code == 404


def test_heat_colours_and_escaping():
    assert svg.heat_colour(0) == "#e9ecef" and svg.heat_colour(0.01) == svg.heat_colour(0.99) == "#a5d8ff"
    assert svg.heat_colour(1.0) == "#2f9e44" and svg.heat_colour(2.5) == "#e8590c" and svg.heat_colour(9) == "#c92a2a"
    rows = [{"link": f"<leaf{i}>", "mean_load": 1.0, "max_load": 2.0, "mean_flows": 1.0} for i in range(1500)]
    picture = svg.link_heatmap_svg({"leaf->spine": rows})
    assert "<leaf" not in picture and "&lt;leaf0&gt;" in picture
    assert picture.count("<rect ") == svg.HEAT_MAX_CELLS and "busiest 1024 of 1500" in picture
