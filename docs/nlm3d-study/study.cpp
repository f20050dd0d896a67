// study.cpp: the measurement harness behind docs/NLM3D.md, "Moving video" (not
// the reference: float, one thread, options for the variants tried). It adds
// AWGN (std::mt19937_64, seed given, rounded and clipped to 8 bits) to a raw
// 8-bit gray clip, filters the frames asked for and prints the noisy and the
// filtered PSNR over them (from the mean MSE). Build and use: README.md here.
//
// usage: study clip.y W H N sigma seed frames(a,b,c | all) key=value...
//   R, Rt, r           search radius, temporal radius, patch radius
//   2d=1               2D patches compared across frames (else the papers' cubes)
//   beta | hk          h^2 = 2 beta sigma^2 per sample (hk^2 = 2 beta: vs-nlm-cuda's h = hk sigma)
//   wmode              0 exp (papers), 4 exp of the distance less 2 sigma^2 (distance-offset),
//                      1, 2, 3: KNLMeansCL's bisquare variants max(1-x,0)^1,2,8
//   self               0 max of the other weights (papers), 1 one, 2 zero; wref scales the max
//   border             0 candidates outside the frame or stream left out (ours),
//                      1 clamped frames and samples (vs-nlm-cuda)
//   motion             0 none, 1 this file's block matching on the noisy frames, 2 the same on
//                      the clean frames, 3 its median (global), 4 kernels/motion_reference
//                      (the project's hierarchical block matching; vlambda, vmargin, vsmooth)
//   bs                 motion cell; Rm search radius in the other frames; ra patch-wise
//                      aggregation radius; decay weight factor exp(-decay |dt|)
//   hkt, offt          h and the distance offset of the other frames' candidates, as factors
//                      (2026-11-25, diver; docs/NLM3D.md "Why diver still loses")
//   hc, cb             frame confidence: each other frame's candidates weighed by
//                      exp(-max(e, 0) / (hc^2 sigma^2 |B|)), e how much larger that frame's best
//                      distance is than frame t's best (non-self) one, averaged over cells of cb
//                      (0: per pixel); hc 0: off; cr0: frame t's best over |dx|, |dy| <= cr0 only;
//                      cs: the cell mean over the pixels x, y multiples of cs only
//   causal=1           frames t - Rt .. t only (the causal window)
//   dump=path          write the noisy clip and exit; score=path  score a filtered clip
//                      (FFmpeg's output) instead of filtering
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>
#include "motion_reference.h"

struct Img {
  int w = 0, h = 0, m = 0;  // m: margin
  std::vector<float> d;
  int pitch() const { return w + 2 * m; }
  float& at(int x, int y) { return d[(size_t)(y + m) * pitch() + x + m]; }
  float at(int x, int y) const { return d[(size_t)(y + m) * pitch() + x + m]; }
  const float* row(int y) const { return &d[(size_t)(y + m) * pitch() + m]; }
};

Img padded(const std::vector<float>& src, int w, int h, int m) {
  Img I;
  I.w = w; I.h = h; I.m = m;
  I.d.resize((size_t)(w + 2 * m) * (h + 2 * m));
  for (int y = -m; y < h + m; ++y)
    for (int x = -m; x < w + m; ++x) {
      int cx = std::min(std::max(x, 0), w - 1), cy = std::min(std::max(y, 0), h - 1);
      I.at(x, y) = src[(size_t)cy * w + cx];
    }
  return I;
}

struct Cfg {
  int R = 5, Rt = 5, r = 1, shape2d = 0;  // shape: 0 cube, 1 2D
  double hk = std::sqrt(0.8);              // x = d/(hk^2 sigma^2), d = d2/|B|
  int wmode = 0;                           // 0 welsch, 1 bisqA, 2 bisqB, 3 bisqC(^8), 4 welsch with 2 sigma^2 subtracted
  int self = 0;                            // 0 max, 1 one, 2 zero (only others; falls back to 1)
  double wref = 1.0;
  int border = 0;                          // 0 exclude candidates outside frame/stream, 1 clamp (peer)
  int motion = 0;                          // 0 none, 1 block motion (noisy), 2 block motion (clean oracle), 3 global (noisy, median)
  int bs = 16;                             // motion block size
  int ra = 0;                              // patch aggregation radius (0: pixelwise)
  int Rm = -1;                             // search radius in other frames (-1: R)
  int mrange = 24;                         // motion search range at full res
  int mlambda = 0;                         // zero-vector bias (SAD units per pixel x100)
  double dtdecay = 0;                      // weight multiplier per |dt|: exp(-dtdecay |dt|)
  int vlambda = 8, vmargin = 4, vsmooth = 2; // vbm3d estimator (motion=4)
  double hkt = 1.0, offt = 1.0, hc = 0; int cb = 0, cr0 = -1, cs = 1, causal = 0;
};
std::vector<std::vector<unsigned char>> g_noisy8;
std::vector<cdn::LumaPyramid> g_vpyr;

static double getd(std::map<std::string, std::string>& kv, const char* k, double d) {
  auto it = kv.find(k);
  return it == kv.end() ? d : std::atof(it->second.c_str());
}

// --- motion: hierarchical block matching ---------------------------------------------------------
struct Level { int w, h; std::vector<float> d; float at(int x, int y) const { x = std::min(std::max(x, 0), w - 1); y = std::min(std::max(y, 0), h - 1); return d[(size_t)y * w + x]; } };
std::vector<Level> pyramid(const std::vector<float>& f, int w, int h, int levels) {
  std::vector<Level> p;
  Level l0{w, h, {}};
  // binomial 3x3 blur at full res
  l0.d.resize((size_t)w * h);
  Level raw{w, h, f};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float s = 0;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) s += raw.at(x + i, y + j) * (i ? 1 : 2) * (j ? 1 : 2);
      l0.d[(size_t)y * w + x] = s / 16;
    }
  p.push_back(l0);
  for (int l = 1; l < levels; ++l) {
    const Level& a = p.back();
    Level b{(a.w + 1) / 2, (a.h + 1) / 2, {}};
    b.d.resize((size_t)b.w * b.h);
    for (int y = 0; y < b.h; ++y)
      for (int x = 0; x < b.w; ++x)
        b.d[(size_t)y * b.w + x] = (a.at(2 * x, 2 * y) + a.at(2 * x + 1, 2 * y) + a.at(2 * x, 2 * y + 1) + a.at(2 * x + 1, 2 * y + 1)) / 4;
    p.push_back(b);
  }
  return p;
}

struct MV { int x, y; };
// Vectors of blocks of A (bs x bs) into B.
std::vector<MV> block_motion(const std::vector<Level>& A, const std::vector<Level>& B, int bs, int range, double lambda) {
  const int L = (int)A.size();
  const int bw = (A[0].w + bs - 1) / bs, bh = (A[0].h + bs - 1) / bs;
  std::vector<MV> v(bw * bh, MV{0, 0});
  for (int l = L - 1; l >= 0; --l) {
    const Level &a = A[l], &b = B[l];
    const int sc = 1 << l;
    const int win = bs;  // window side at this level (footprint grows with level)
    for (int by = 0; by < bh; ++by)
      for (int bx = 0; bx < bw; ++bx) {
        MV& m = v[by * bw + bx];
        const int cx = (bx * bs + bs / 2) / sc, cy = (by * bs + bs / 2) / sc;
        int px = l == L - 1 ? 0 : m.x / sc, py = l == L - 1 ? 0 : m.y / sc;  // m at full res, now level l
        int rr = l == L - 1 ? (range + sc - 1) / sc : 2;
        auto sad = [&](int ux, int uy) {
          double s = 0;
          for (int j = -win / 2; j < win / 2; ++j)
            for (int i = -win / 2; i < win / 2; ++i) s += std::fabs(a.at(cx + i, cy + j) - b.at(cx + i + ux, cy + j + uy));
          return s;
        };
        double best = 1e30; int bxv = 0, byv = 0;
        std::vector<MV> cands;
        for (int uy = py - rr; uy <= py + rr; ++uy)
          for (int ux = px - rr; ux <= px + rr; ++ux) cands.push_back({ux, uy});
        if (l < L - 1) cands.push_back({0, 0});
        for (auto c : cands) {
          double s = sad(c.x, c.y);
          if (c.x == 0 && c.y == 0) s -= lambda * win * win;
          if (s < best) { best = s; bxv = c.x; byv = c.y; }
        }
        m.x = bxv * sc; m.y = byv * sc;
      }
  }
  return v;
}

// --- NLM ------------------------------------------------------------------------------------------
struct Clip {
  int w, h, n;
  std::vector<std::vector<float>> clean, noisy;
  std::vector<Img> P;  // padded noisy
};

double weight_of(const Cfg& c, double d2, int B, double sigma, bool other = false) {
  const double hk = other ? c.hk * c.hkt : c.hk;
  const double inv = 1.0 / (hk * hk * sigma * sigma);
  double dd = d2 / B;
  if (c.wmode == 4) dd = std::max(dd - (other ? c.offt : 1.0) * 2 * sigma * sigma, 0.0);
  const double x = dd * inv;
  switch (c.wmode) {
    case 1: return std::max(1 - x, 0.0);
    case 2: { double u = std::max(1 - x, 0.0); return u * u; }
    case 3: { double u = std::max(1 - x, 0.0); u *= u; u *= u; return u * u; }
    default: return std::exp(-x);
  }
}

std::vector<float> filter(const Clip& C, int t, const Cfg& c, double sigma, const std::vector<std::vector<Level>>& pyrN,
                          const std::vector<std::vector<Level>>& pyrC) {
  const int w = C.w, h = C.h, r = c.r;
  const int p = 2 * r + 1;
  const int B = c.shape2d ? p * p : p * p * p;
  const int n = w * h;
  std::vector<double> num(n, 0), den(n, 0), wmax(n, 0);
  std::vector<double> tnum(n, 0), tden(n, 0), dmin(n, 1e30), dmin0(n, 1e30);
  std::vector<double>* NUM = &num; std::vector<double>* DEN = &den;
  auto frame = [&](int f) -> const Img& { return C.P[std::min(std::max(f, 0), C.n - 1)]; };
  const int bs = c.motion ? c.bs : std::max(w, h);
  const int bw = (w + bs - 1) / bs, bh = (h + bs - 1) / bs;
  const int ra = c.ra;
  std::vector<float> D, Hs, W;
  std::vector<double> S;
  std::vector<int> dts{0};
  for (int k = -c.Rt; k <= (c.causal ? 0 : c.Rt); ++k) if (k) dts.push_back(k);
  for (int dt : dts) {
    int tc = t + dt;
    if (c.border == 0 && (tc < 0 || tc >= C.n)) continue;
    tc = std::min(std::max(tc, 0), C.n - 1);
    std::vector<MV> mv(bw * bh, MV{0, 0});
    if (c.motion == 4 && tc != t) {
      cdn::MotionParams mp; mp.cell = bs; mp.lambda = c.vlambda; mp.margin = c.vmargin; mp.smooth_passes = c.vsmooth;
      auto pyr = [&](int f) -> const cdn::LumaPyramid& {
        if (g_vpyr.empty()) {
          for (int i = 0; i < C.n; ++i) {
            cdn::PlaneView pv; pv.data = g_noisy8[i].data(); pv.pitch = w; pv.width = w; pv.height = h;
            g_vpyr.push_back(cdn::build_pyramid(pv, mp));
          }
        }
        return g_vpyr[f];
      };
      const cdn::MotionField mf = cdn::estimate_motion(pyr(t), pyr(tc), mp);
      for (int by = 0; by < bh; ++by) for (int bx = 0; bx < bw; ++bx) mv[by * bw + bx] = MV{mf.at_cell(bx, by).dx, mf.at_cell(bx, by).dy};
    } else if (c.motion && tc != t) {
      const auto& pa = c.motion == 2 ? pyrC[t] : pyrN[t];
      const auto& pb = c.motion == 2 ? pyrC[tc] : pyrN[tc];
      mv = block_motion(pa, pb, bs, c.mrange, c.mlambda / 100.0);
      if (c.motion == 3) {  // global: median vector
        std::vector<int> xs, ys;
        for (auto m : mv) { xs.push_back(m.x); ys.push_back(m.y); }
        std::nth_element(xs.begin(), xs.begin() + xs.size() / 2, xs.end());
        std::nth_element(ys.begin(), ys.begin() + ys.size() / 2, ys.end());
        for (auto& m : mv) m = {xs[xs.size() / 2], ys[ys.size() / 2]};
      }
    }
    const int Rs = (dt != 0 && c.Rm >= 0) ? c.Rm : c.R;
    const bool adapt = c.hc > 0 && dt != 0;
    if (adapt) { std::fill(tnum.begin(), tnum.end(), 0); std::fill(tden.begin(), tden.end(), 0); std::fill(dmin.begin(), dmin.end(), 1e30); NUM = &tnum; DEN = &tden; }
    else { NUM = &num; DEN = &den; }
    const double decay = std::exp(-c.dtdecay * std::abs(dt));
    for (int by = 0; by < bh; ++by)
      for (int bx = 0; bx < bw; ++bx) {
        const MV v = mv[by * bw + bx];
        const int X0 = bx * bs, Y0 = by * bs, X1 = std::min(X0 + bs, w), Y1 = std::min(Y0 + bs, h);
        const int bwid = X1 - X0, bhgt = Y1 - Y0;
        const int ew = bwid + 2 * r, eh = bhgt + 2 * r;
        D.assign((size_t)ew * eh, 0);
        Hs.assign((size_t)bwid * eh, 0);
        const int aw = bwid + 2 * ra, ah = bhgt + 2 * ra;
        for (int dy = -Rs; dy <= Rs; ++dy)
          for (int dx = -Rs; dx <= Rs; ++dx) {
            if (dt == 0 && dx == 0 && dy == 0) continue;
            const int ox = dx + v.x, oy = dy + v.y;
            // diff over the block + apron
            const int k0 = c.shape2d ? 0 : -r, k1 = c.shape2d ? 0 : r;
            std::fill(D.begin(), D.end(), 0.f);
            for (int k = k0; k <= k1; ++k) {
              const Img& A = frame(t + k);
              const Img& Bf = frame(tc + k);
              for (int ey = 0; ey < eh; ++ey) {
                const int y = Y0 + ey - r;
                int ya = std::min(std::max(y, 0), h - 1);
                int yb = std::min(std::max(y + oy, 0), h - 1);
                const float* ar = A.row(ya);
                const float* br = Bf.row(yb);
                float* dr = &D[(size_t)ey * ew];
                for (int ex = 0; ex < ew; ++ex) {
                  const int x = X0 + ex - r;
                  const int xa = std::min(std::max(x, 0), w - 1), xb = std::min(std::max(x + ox, 0), w - 1);
                  const float d = ar[xa] - br[xb];
                  dr[ex] += d * d;
                }
              }
            }
            for (int ey = 0; ey < eh; ++ey)
              for (int x = 0; x < bwid; ++x) {
                float s = 0;
                for (int i = 0; i < p; ++i) s += D[(size_t)ey * ew + x + i];
                Hs[(size_t)ey * bwid + x] = s;
              }
            const Img& V = frame(tc);
            if (ra == 0) {
              for (int y = 0; y < bhgt; ++y)
                for (int x = 0; x < bwid; ++x) {
                  const int px = X0 + x, py = Y0 + y, qx = px + ox, qy = py + oy;
                  if (c.border == 0 && (qx < 0 || qy < 0 || qx >= w || qy >= h)) continue;
                  float d2 = 0;
                  for (int j = 0; j < p; ++j) d2 += Hs[(size_t)(y + j) * bwid + x];
                  const double wt = weight_of(c, d2, B, sigma, dt != 0) * decay;
                  const size_t i = (size_t)py * w + px;
                  (*NUM)[i] += wt * V.at(std::min(std::max(qx, 0), w - 1), std::min(std::max(qy, 0), h - 1));
                  (*DEN)[i] += wt;
                  wmax[i] = std::max(wmax[i], wt);
                  if (dt != 0) dmin[i] = std::min(dmin[i], (double)d2);
                  else if (c.cr0 < 0 || (std::abs(dx) <= c.cr0 && std::abs(dy) <= c.cr0)) dmin0[i] = std::min(dmin0[i], (double)d2);
                }
            } else {
              // weights of the block's centres, box-spread over the block dilated by ra
              W.assign((size_t)aw * ah, 0);
              for (int y = 0; y < bhgt; ++y)
                for (int x = 0; x < bwid; ++x) {
                  const int px = X0 + x, py = Y0 + y, qx = px + ox, qy = py + oy;
                  if (c.border == 0 && (qx < 0 || qy < 0 || qx >= w || qy >= h)) continue;
                  float d2 = 0;
                  for (int j = 0; j < p; ++j) d2 += Hs[(size_t)(y + j) * bwid + x];
                  const double wt = weight_of(c, d2, B, sigma, dt != 0) * decay;
                  W[(size_t)(y + ra) * aw + x + ra] = wt;
                  const size_t i = (size_t)py * w + px;
                  wmax[i] = std::max(wmax[i], wt);
                }
              S.assign((size_t)aw * ah, 0);
              std::vector<double> T((size_t)aw * ah, 0);
              for (int y = 0; y < ah; ++y)
                for (int x = 0; x < aw; ++x) {
                  double s = 0;
                  for (int i = -ra; i <= ra; ++i) { int xx = x + i; if (xx >= 0 && xx < aw) s += W[(size_t)y * aw + xx]; }
                  T[(size_t)y * aw + x] = s;
                }
              for (int y = 0; y < ah; ++y)
                for (int x = 0; x < aw; ++x) {
                  double s = 0;
                  for (int j = -ra; j <= ra; ++j) { int yy = y + j; if (yy >= 0 && yy < ah) s += T[(size_t)yy * aw + x]; }
                  if (s == 0) continue;
                  const int px = X0 + x - ra, py = Y0 + y - ra;
                  if (px < 0 || py < 0 || px >= w || py >= h) continue;
                  const size_t i = (size_t)py * w + px;
                  num[i] += s * V.at(std::min(std::max(px + ox, 0), w - 1), std::min(std::max(py + oy, 0), h - 1));
                  den[i] += s;
                }
            }
          }
      }
    if (adapt) {
      const double inv = 1.0 / (c.hc * c.hc * sigma * sigma * B);
      std::vector<double> ex(n);
      for (int i = 0; i < n; ++i) ex[i] = dmin[i] - dmin0[i];
      if (c.cb > 0) {  // mean over cells of cb x cb
        for (int y0 = 0; y0 < h; y0 += c.cb) for (int x0 = 0; x0 < w; x0 += c.cb) {
          double sm = 0; int k = 0;
          for (int y = y0; y < std::min(h, y0 + c.cb); ++y) for (int x = x0; x < std::min(w, x0 + c.cb); ++x) if (x % c.cs == 0 && y % c.cs == 0) { sm += ex[(size_t)y * w + x]; ++k; }
          for (int y = y0; y < std::min(h, y0 + c.cb); ++y) for (int x = x0; x < std::min(w, x0 + c.cb); ++x) ex[(size_t)y * w + x] = sm / k;
        }
      }
      for (int i = 0; i < n; ++i) {
        const double f = std::exp(-std::max(ex[i], 0.0) * inv);
        num[i] += f * tnum[i]; den[i] += f * tden[i];
      }
    }
  }
  std::vector<float> out(n);
  const Img& X = C.P[t];
  if (ra == 0) {
    for (int i = 0; i < n; ++i) {
      double self = c.self == 1 ? 1.0 : (c.self == 2 ? 0.0 : wmax[i] * c.wref);
      if (den[i] <= 0) self = 1.0;
      if (self <= 0 && den[i] <= 0) self = 1;
      out[i] = (num[i] + self * X.at(i % w, i / w)) / (den[i] + self);
    }
  } else {
    // self weights of centres spread like the others
    std::vector<double> sw(n), T(n), Sw(n);
    for (int i = 0; i < n; ++i) sw[i] = c.self == 1 ? 1.0 : (den[i] > 0 || wmax[i] > 0 ? wmax[i] * c.wref : 1.0);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double s = 0;
        for (int i = -ra; i <= ra; ++i) { int xx = x + i; if (xx >= 0 && xx < w) s += sw[(size_t)y * w + xx]; }
        T[(size_t)y * w + x] = s;
      }
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double s = 0;
        for (int j = -ra; j <= ra; ++j) { int yy = y + j; if (yy >= 0 && yy < h) s += T[(size_t)yy * w + x]; }
        Sw[(size_t)y * w + x] = s;
      }
    for (int i = 0; i < n; ++i) out[i] = (num[i] + Sw[i] * X.at(i % w, i / w)) / (den[i] + Sw[i]);
  }
  for (auto& v : out) v = std::min(255.f, std::max(0.f, std::floor(v + 0.5f)));
  return out;
}

int main(int argc, char** argv) {
  if (argc < 8) { std::fprintf(stderr, "usage\n"); return 2; }
  Clip C;
  const char* path = argv[1];
  C.w = std::atoi(argv[2]); C.h = std::atoi(argv[3]); C.n = std::atoi(argv[4]);
  const double sigma = std::atof(argv[5]);
  const int seed = std::atoi(argv[6]);
  std::string frames = argv[7];
  std::map<std::string, std::string> kv;
  for (int i = 8; i < argc; ++i) {
    std::string a = argv[i];
    auto e = a.find('=');
    kv[a.substr(0, e)] = a.substr(e + 1);
  }
  Cfg c;
  c.R = getd(kv, "R", c.R); c.Rt = getd(kv, "Rt", c.Rt); c.r = getd(kv, "r", c.r); c.shape2d = getd(kv, "2d", c.shape2d);
  if (kv.count("beta")) c.hk = std::sqrt(2 * getd(kv, "beta", 0.4));
  c.hk = getd(kv, "hk", c.hk); c.wmode = getd(kv, "wmode", 0); c.self = getd(kv, "self", 0); c.wref = getd(kv, "wref", 1);
  c.border = getd(kv, "border", 0); c.motion = getd(kv, "motion", 0); c.bs = getd(kv, "bs", 16); c.ra = getd(kv, "ra", 0);
  c.Rm = getd(kv, "Rm", -1); c.mrange = getd(kv, "mrange", 24); c.mlambda = getd(kv, "mlambda", 0);
  c.dtdecay = getd(kv, "decay", 0); c.hkt = getd(kv, "hkt", 1); c.hc = getd(kv, "hc", 0); c.cb = getd(kv, "cb", 0); c.cr0 = getd(kv, "cr0", -1); c.cs = getd(kv, "cs", 1); c.causal = getd(kv, "causal", 0); c.offt = getd(kv, "offt", 1);
  c.vlambda = getd(kv, "vlambda", 8); c.vmargin = getd(kv, "vmargin", 4); c.vsmooth = getd(kv, "vsmooth", 2);
  const int n = C.w * C.h;
  std::FILE* f = std::fopen(path, "rb");
  if (!f) { std::perror(path); return 2; }
  std::vector<unsigned char> buf(n);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(0, sigma);
  const int M = 64;
  for (int i = 0; i < C.n; ++i) {
    if (std::fread(buf.data(), 1, n, f) != (size_t)n) { std::fprintf(stderr, "short\n"); return 2; }
    std::vector<float> cl(n), no(n);
    for (int j = 0; j < n; ++j) {
      cl[j] = buf[j];
      no[j] = std::min(255.0, std::max(0.0, std::floor(buf[j] + nd(rng) + 0.5)));
    }
    C.clean.push_back(cl); C.noisy.push_back(no);
    g_noisy8.emplace_back(no.begin(), no.end());
    C.P.push_back(padded(no, C.w, C.h, M));
  }
  std::fclose(f);
  std::vector<int> fl;
  if (frames == "all") for (int i = 0; i < C.n; ++i) fl.push_back(i);
  else { char* s = &frames[0]; for (char* tok = std::strtok(s, ","); tok; tok = std::strtok(nullptr, ",")) fl.push_back(std::atoi(tok)); }
  std::vector<std::vector<Level>> pyrN, pyrC;
  if (c.motion && c.motion != 4) for (int i = 0; i < C.n; ++i) { pyrN.push_back(pyramid(C.noisy[i], C.w, C.h, 3)); pyrC.push_back(pyramid(C.clean[i], C.w, C.h, 3)); }
  if (kv.count("dump")) {
    std::FILE* g = std::fopen(kv["dump"].c_str(), "wb");
    for (int i = 0; i < C.n; ++i) { for (int j = 0; j < n; ++j) buf[j] = (unsigned char)C.noisy[i][j]; std::fwrite(buf.data(), 1, n, g); }
    std::fclose(g);
    return 0;
  }
  std::vector<std::vector<float>> given;
  if (kv.count("score")) {
    std::FILE* g = std::fopen(kv["score"].c_str(), "rb");
    for (int i = 0; i < C.n; ++i) { if (std::fread(buf.data(), 1, n, g) != (size_t)n) return 3; given.emplace_back(buf.begin(), buf.end()); }
    std::fclose(g);
  }
  double se = 0, sen = 0; long cnt = 0;
  for (int t : fl) {
    auto o = given.empty() ? filter(C, t, c, sigma, pyrN, pyrC) : given[t];
    for (int j = 0; j < n; ++j) {
      double d = o[j] - C.clean[t][j], dn = C.noisy[t][j] - C.clean[t][j];
      se += d * d; sen += dn * dn; ++cnt;
    }
  }
  std::printf("%.3f %.3f\n", 10 * std::log10(255.0 * 255.0 / (sen / cnt)), 10 * std::log10(255.0 * 255.0 / (se / cnt)));
  return 0;
}
